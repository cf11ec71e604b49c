public import CarePlan
public import Foundation

/// One version of a task as stored: its content plus version identity and dates.
public struct StoredTask: Sendable, Hashable {
    /// The content; `task.effectiveDate` is the version's effective date.
    public var task: CareTask
    /// This version's uuid.
    public var version: UUID
    /// 1 for the first version, then 2, 3, …
    public var versionNumber: Int
    public var previousVersion: UUID?
    public var effectiveDate: Date
    public var createdDate: Date
    /// Set on the tombstone version that deletes the task.
    public var deletedDate: Date?
    /// The patient whose plan the task belongs to (nil in a store without patients).
    public var patientID: String? = nil
    /// When the store first saw that patient (its first version's creation), where known
    /// (``CareStore/ruleTaskVersions(linkedTo:)`` fills it in).
    public var patientSince: Date? = nil
    /// The id the plan file gave the task, unique per patient. ``id`` (`task.id`) is the store-wide key: the same
    /// as the name unless another patient used the name first (then `NAME@PATIENT`).
    public var name: String = ""

    /// From when the version's facts count for adherence: when it was applied (created), or when the store
    /// first saw its patient, whichever is later. Time before it was not under this plan.
    public var appliedSince: Date { max(createdDate, patientSince ?? createdDate) }

    public var id: String { task.id }

    /// The task's name as a person reads it within its patient (``name``; the key where no name is known): what
    /// insights, the report, alerts and FHIR texts show, as ``CareEvent/taskName`` is for an event.
    public var taskName: String { name.isEmpty ? task.id : name }

    /// The task as its plan file says it: `id` is the name (what `plan show --json` prints and `plan apply` reads).
    public var planTask: CareTask {
        var task = task
        task.id = taskName
        return task
    }
}

extension StoredTask {
    /// A version as another store holds it (the hub reads the versions its bridges sent).
    public init(
        task: CareTask,
        version: UUID,
        versionNumber: Int,
        previousVersion: UUID?,
        effectiveDate: Date,
        createdDate: Date,
        deletedDate: Date?,
        patientID: String?,
        name: String
    ) {
        self.task = task
        self.version = version
        self.versionNumber = versionNumber
        self.previousVersion = previousVersion
        self.effectiveDate = effectiveDate
        self.createdDate = createdDate
        self.deletedDate = deletedDate
        self.patientID = patientID
        self.name = name
    }
}

/// What applying a plan did, by task id.
public struct PlanApplyReport: Sendable, Hashable {
    /// Tasks that did not exist before.
    public var added: [String] = []
    /// Tasks that got a new version.
    public var updated: [String] = []
    /// Tasks whose content was already the same.
    public var unchanged: [String] = []
    /// Events whose outcome was derived from samples already in the store.
    public var eventsUpdated: Int = 0
    /// The store key of each added or updated task whose key is not its name (`bp` → `bp@bed-2`).
    public var keys: [String: String] = [:]

    public init() {}

    /// The store key of the plan's task `name`.
    public func key(of name: String) -> String { keys[name] ?? name }
}
