import BridgeCore
import BridgeFoundation
import CarePlan
import Foundation
import GRDB
import Synchronization

/// One stored task version with its decoded schedule and the region of time in which it is in force.
///
/// Versions of one task form a chain (version 1, 2, …). Version *k* is in force from its effective date until
/// the earliest effective date of any newer version; a version a newer one starts before is fully shadowed
/// (CareKit's "newest version in interval" rule, PR #350).
struct TaskVersion: Sendable {
    let record: TaskRecord
    let uuid: UUID
    let task: CareTask
    let effective: Date
    /// Exclusive end of the region (the next version's effective date), nil while it is the newest.
    let until: Date?
    /// The patient whose plan the task belongs to (nil in a store without patients).
    var patient: String? = nil
    /// The id the plan file gave the task (unique per patient); `record.id` is the store-wide key.
    var name: String { record.name ?? record.id }
    var isTombstone: Bool { record.deletedDate != nil }
    var isShadowed: Bool { until.map { $0 <= effective } ?? false }

    /// Whether an instant lies in this version's region.
    func governs(_ instant: Date) -> Bool {
        Self.region(from: effective, until: until, contains: instant)
    }

    /// Whether `instant` lies in the region `[effective, until)` (open-ended without `until`).
    static func region(from effective: Date, until: Date?, contains instant: Date) -> Bool {
        instant >= effective && (until.map { instant < $0 } ?? true)
    }

    /// The region intersected with `[from, to)`, or nil when empty.
    func clip(from: Date, to: Date) -> (Date, Date)? {
        let lower = max(from, effective)
        let upper = min(to, until ?? to)
        return lower < upper ? (lower, upper) : nil
    }
}

/// Every task version in the store, grouped by task id, with regions computed.
struct TaskVersions: Sendable {
    /// All versions, by task id then version number.
    let all: [TaskVersion]
    /// Live (non-tombstone, non-shadowed) versions with a sample linkage, by linked type.
    let linkedByType: [QuantityType: [TaskVersion]]
    /// Where each task's versions are in ``all``: looking a task up is a dictionary read, not a scan of every
    /// version (re-applying a plan of n tasks was O(n²)).
    let ranges: [String: Range<Int>]
    /// The keys of the tasks of each name (one per patient at most): a name is a dictionary read too.
    let keysByName: [String: [String]]

    /// - Parameters:
    ///   - patient: only the tasks of this patient's plans (all when nil).
    ///   - filter: only the task rows this SQL condition selects (it must select whole chains, e.g. by id).
    static func load(_ db: Database, patient: String? = nil, filter: String? = nil) throws -> TaskVersions {
        var request = TaskRecord.order(Column("id"), Column("versionNumber"))
        if let filter { request = request.filter(sql: filter) }
        if let patient {
            // Whole chains of the tasks any of whose versions belongs to a plan whose newest version is the
            // patient's: selected in SQL, so a ward's Today page reads one patient's rows, not every patient's.
            request = request.filter(
                sql: """
                    id IN (SELECT task.id FROM task JOIN carePlan ON carePlan.id = task.carePlanID
                           WHERE carePlan.patientID = ?
                             AND carePlan.versionNumber = (SELECT MAX(p.versionNumber) FROM carePlan p
                                                           WHERE p.id = carePlan.id))
                    """,
                arguments: [patient]
            )
        }
        let records = try request.fetchAll(db)
        // The patient of each plan (its newest version).
        var planPatients: [String: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, patientID FROM carePlan ORDER BY versionNumber") {
            planPatients[row[0]] = row[1] as String
        }
        return try TaskVersions(records: records) { record in
            (try DecodedTasks.shared.task(for: record), record.carePlanID.flatMap { planPatients[$0] })
        }
    }

    /// The keys of the tasks named `name` (one per patient at most), each with its patient.
    func keys(named name: String) -> [(key: String, patient: String?)] {
        (keysByName[name] ?? []).compactMap { key in
            ranges[key].map { (key, all[$0.upperBound - 1].patient) }
        }
        .sorted { NaturalOrder.precedes($0.patient ?? "", $1.patient ?? "") }
    }

    /// The versions of one task (by key), oldest first.
    func versions(of taskID: String) -> [TaskVersion] { ranges[taskID].map { Array(all[$0]) } ?? [] }

    /// The version of `taskID` in force at `instant` (nil before the first version or after a deletion).
    func version(of taskID: String, at instant: Date) -> TaskVersion? {
        versions(of: taskID).last { !$0.isShadowed && $0.governs(instant) }.flatMap { $0.isTombstone ? nil : $0 }
    }

    /// The newest version of every task that is not deleted, by task id.
    var current: [TaskVersion] {
        var result: [TaskVersion] = []
        var index = 0
        while index < all.count {
            var end = index
            while end < all.count, all[end].record.id == all[index].record.id { end += 1 }
            let newest = all[end - 1]
            if !newest.isTombstone { result.append(newest) }
            index = end
        }
        return result
    }
}

extension TaskVersions {
    /// The versions of these rows (by task id, then version number), each chain's regions computed: pure, so the
    /// hub builds the same versions from what bridges sent (``CareEvent/events(of:from:to:zone:outcome:)``).
    /// - Parameter content: each row's task and patient.
    init(records: [TaskRecord], content: (TaskRecord) throws -> (CareTask, String?)) rethrows {
        var all: [TaskVersion] = []
        var ranges: [String: Range<Int>] = [:]
        var index = 0
        while index < records.count {
            var end = index
            while end < records.count, records[end].id == records[index].id { end += 1 }
            // Newest first: each version is bounded by the earliest effective date among newer ones.
            var bound: Date?
            var chain: [TaskVersion] = []
            for record in records[index..<end].reversed() {
                let (task, patient) = try content(record)
                let version = TaskVersion(
                    record: record,
                    uuid: UUID(uuidString: record.uuid) ?? UUID(),
                    task: task,
                    effective: record.effectiveDate,
                    until: bound,
                    patient: patient
                )
                chain.append(version)
                bound = min(bound ?? record.effectiveDate, record.effectiveDate)
            }
            ranges[records[index].id] = all.count..<(all.count + chain.count)
            all += chain.reversed()
            index = end
        }
        var linked: [QuantityType: [TaskVersion]] = [:]
        for version in all where !version.isTombstone && !version.isShadowed {
            if let linkage = version.task.linkage, version.task.kind == .assessment {
                linked[linkage.type, default: []].append(version)
            }
        }
        var keysByName: [String: [String]] = [:]
        for (key, range) in ranges { keysByName[all[range.upperBound - 1].name, default: []].append(key) }
        self.init(all: all, linkedByType: linked, ranges: ranges, keysByName: keysByName)
    }
}

/// Task versions are immutable, so their decoded content is cached per version uuid for the process.
final class DecodedTasks: Sendable {
    static let shared = DecodedTasks()
    private let cache = Mutex<[String: CareTask]>([:])

    func task(for record: TaskRecord) throws -> CareTask {
        if let task = cache.withLock({ $0[record.uuid] }) { return task }
        let task = try record.careTask()
        cache.withLock { $0[record.uuid] = task }
        return task
    }
}

extension TaskRecord {
    /// Decodes the stored task content (schedule JSON, linkage columns).
    func careTask() throws -> CareTask {
        let schedule: Schedule
        do {
            schedule = try JSONDecoder().decode(Schedule.self, from: Data(self.schedule.utf8))
        } catch {
            throw unreadable("schedule", error)
        }
        guard let kind = TaskKind(rawValue: kind) else {
            throw CareStoreError(.corruptRow, "task \(id) version \(uuid): unknown kind '\(self.kind)'", taskID: id)
        }
        var linkage: SampleLinkage?
        if let linkageType, let linkageUnit, let linkageAggregation {
            guard let type = QuantityType(rawValue: linkageType),
                let aggregation = Aggregation(rawValue: linkageAggregation)
            else {
                throw CareStoreError(
                    .corruptRow,
                    "task \(id) version \(uuid): unknown linkage \(linkageType)/\(linkageAggregation)",
                    taskID: id
                )
            }
            linkage = SampleLinkage(type: type, unit: HealthUnit(rawValue: linkageUnit), aggregation: aggregation)
        }
        let tags = (try? JSONDecoder().decode([String].self, from: Data(self.tags.utf8))) ?? []
        var answer: AnswerFormat?
        var alerts: [AlertRule] = []
        do {
            answer = try self.answer.map { try JSONDecoder().decode(AnswerFormat.self, from: Data($0.utf8)) }
            alerts = try self.alerts.map { try JSONDecoder().decode([AlertRule].self, from: Data($0.utf8)) } ?? []
        } catch {
            throw unreadable("answer format or alert rules", error)
        }
        return CareTask(
            id: id,
            title: title,
            instructions: instructions,
            kind: kind,
            groupIdentifier: groupIdentifier,
            tags: tags,
            impactsAdherence: impactsAdherence,
            schedule: schedule,
            linkage: linkage,
            answer: answer,
            alerts: alerts,
            effectiveDate: effectiveDate
        )
    }

    /// The error for stored task content this release refuses: which task, version and field, the value and its
    /// range, and what to do (a store written by an earlier release may hold a number it accepted, such as a
    /// duration of 1e19 s; reading it on would overflow the schedule engine).
    private func unreadable(_ part: String, _ error: any Error) -> CareStoreError {
        var detail = "\(error)"
        if let decoding = error as? DecodingError {
            switch decoding {
            case .dataCorrupted(let context), .keyNotFound(_, let context), .typeMismatch(_, let context),
                .valueNotFound(_, let context):
                let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
                let at = path.hasPrefix(".") ? String(path.dropFirst()) : path
                detail = at.isEmpty ? context.debugDescription : "\(at): \(context.debugDescription)"
            @unknown default: break
            }
        }
        return CareStoreError(
            .corruptRow,
            "task '\(id)' version \(versionNumber) (\(uuid)): the stored \(part) cannot be used: \(detail). The store "
                + "holds a value this release refuses (an earlier release accepted it); nothing was changed. Restore "
                + "the store from a backup made before that plan was applied",
            taskID: id
        )
    }

    /// A new version row for `task`.
    init(
        task: CareTask,
        uuid: UUID,
        versionNumber: Int,
        previous: String?,
        effective: Date,
        created: Date,
        deleted: Date?,
        carePlanID: String? = nil,
        key: String? = nil
    ) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        self.init(
            uuid: uuid.uuidString.lowercased(),
            id: key ?? task.id,
            versionNumber: versionNumber,
            previousVersionUUID: previous,
            title: task.title,
            instructions: task.instructions,
            kind: task.kind.rawValue,
            groupIdentifier: task.groupIdentifier,
            tags: (try? encoder.encode(task.tags)).map { String(decoding: $0, as: UTF8.self) } ?? "[]",
            impactsAdherence: task.impactsAdherence,
            schedule: (try? encoder.encode(task.schedule)).map { String(decoding: $0, as: UTF8.self) } ?? "{}",
            linkageType: task.linkage?.type.rawValue,
            linkageUnit: task.linkage?.unit.rawValue,
            linkageAggregation: task.linkage?.aggregation.rawValue,
            answer: task.answer.flatMap { try? encoder.encode($0) }.map { String(decoding: $0, as: UTF8.self) },
            alerts: task.alerts.isEmpty
                ? nil : (try? encoder.encode(task.alerts)).map { String(decoding: $0, as: UTF8.self) },
            effectiveDate: effective,
            createdDate: created,
            deletedDate: deleted,
            carePlanID: carePlanID,
            name: task.id
        )
    }
}
