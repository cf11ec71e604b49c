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

    public var id: String { task.id }
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

    public init() {}
}
