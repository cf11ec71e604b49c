public import BridgeCore
public import CarePlan
public import Foundation
import GRDB
import Logging

extension CareStore {
    /// Creates or versions the file's patient, plan, contacts and every task of a plan in one transaction: a task
    /// that does not exist is added, a task whose content changed gets a new version, an unchanged task is left
    /// alone. Tasks not in the plan are not touched. If anything fails (e.g. the versioning guard), nothing is
    /// applied.
    /// - Throws: ``CareStoreError`` `.versionWouldShadowOutcomes` naming the task, version and date.
    @discardableResult
    public func applyPlan(
        _ plan: CarePlanDocument,
        at now: Date = Date()
    ) async throws(CareStoreError)
        -> PlanApplyReport
    {
        let zone = bridgeZone
        let scope = patientScope
        let report = try await write { db in try Self.applyPlan(db, plan, scope: scope, zone: zone, now: now) }
        if !report.added.isEmpty || !report.updated.isEmpty {
            broadcaster.publish([.taskListChanged(taskIDs: (report.added + report.updated).map { report.key(of: $0) })])
            logger.info(
                "applied care plan",
                metadata: ["tasks.added": "\(report.added.count)", "tasks.updated": "\(report.updated.count)"]
            )
        }
        return report
    }

    /// Adds a new task (version 1).
    /// - Throws: ``CareStoreError`` if a task with this id exists (even deleted).
    @discardableResult
    public func addTask(_ task: CareTask, at now: Date = Date()) async throws(CareStoreError) -> StoredTask {
        let zone = bridgeZone
        let scope = patientScope
        let stored = try await write { db -> StoredTask in
            let planID = try Self.defaultPlan(db, patientID: scope)
            let patient = try planID.flatMap { try Self.planPatient(db, planID: $0) }
            let versions = try TaskVersions.load(db)
            let (key, chain) = try Self.chainForPlan(
                db,
                name: task.id,
                versions: versions,
                plan: planID,
                patient: patient
            )
            guard chain.isEmpty else {
                throw CareStoreError(
                    .taskExists,
                    "task '\(task.id)' already exists; update it instead",
                    taskID: task.id
                )
            }
            let uuid = try Self.insertVersion(
                db,
                task: task,
                key: key,
                chain: [],
                zone: zone,
                now: now,
                planID: planID
            )
            _ = try Self.deriveFromStoredSamples(db, versions: [uuid], zone: zone, now: now)
            return try Self.storedTask(db, uuid: uuid)
        }
        broadcaster.publish([.taskListChanged(taskIDs: [stored.task.id])])
        return stored
    }

    /// Adds a new version of an existing task, effective from `task.effectiveDate` (default: its schedule's
    /// start). Past outcomes stay with the versions they belong to.
    /// - Throws: ``CareStoreError`` `.taskNotFound`, `.taskDeleted`, or `.versionWouldShadowOutcomes` when the
    ///   effective date is at or before the start of an event that already has an outcome.
    @discardableResult
    public func updateTask(_ task: CareTask, at now: Date = Date()) async throws(CareStoreError) -> StoredTask {
        let zone = bridgeZone
        let stored = try await write { db -> StoredTask in
            let chain = try TaskVersions.load(db).versions(of: task.id)
            guard let newest = chain.last else {
                throw CareStoreError(.taskNotFound, "no task '\(task.id)' to update", taskID: task.id)
            }
            guard newest.record.deletedDate == nil else {
                throw CareStoreError(
                    .taskDeleted,
                    "task '\(task.id)' is deleted",
                    taskID: task.id,
                    version: newest.uuid
                )
            }
            var named = task
            named.id = newest.name
            let uuid = try Self.insertVersion(db, task: named, key: task.id, chain: chain, zone: zone, now: now)
            _ = try Self.deriveFromStoredSamples(db, versions: [uuid], zone: zone, now: now)
            return try Self.storedTask(db, uuid: uuid)
        }
        broadcaster.publish([.taskListChanged(taskIDs: [task.id])])
        return stored
    }

    /// Deletes a task by appending a tombstone version effective at `date` (default now). Events before it,
    /// and their outcomes, stay visible: deletion never rewrites history. Events from `date` on disappear.
    /// - Throws: ``CareStoreError`` `.taskNotFound` or `.taskDeleted`.
    public func deleteTask(
        id: String,
        effective date: Date? = nil,
        at now: Date = Date()
    ) async throws(CareStoreError) {
        try await write { db in
            let chain = try TaskVersions.load(db).versions(of: id)
            guard let newest = chain.last else {
                throw CareStoreError(.taskNotFound, "no task '\(id)' to delete", taskID: id)
            }
            guard newest.record.deletedDate == nil else {
                throw CareStoreError(.taskDeleted, "task '\(id)' is already deleted", taskID: id, version: newest.uuid)
            }
            var record = newest.record
            record.uuid = UUID().uuidString.lowercased()
            record.versionNumber = newest.record.versionNumber + 1
            record.previousVersionUUID = newest.record.uuid
            record.effectiveDate = date ?? now
            record.createdDate = now
            record.deletedDate = now
            try record.insert(db)
        }
        broadcaster.publish([.taskListChanged(taskIDs: [id])])
    }

    /// The store key of the task a person named: by its name among the scoped patient's tasks (every patient's when
    /// unscoped), else by its key (`bp@bed-2`). A name no task has comes back as it is, so the store's own
    /// "no task" errors name it.
    /// - Throws: ``CareStoreError`` `.patientRequired` when the store is not scoped and several patients have a
    ///   task of this name; the message lists them.
    public func taskKey(for name: String) async throws(CareStoreError) -> String {
        let scope = patientScope
        return try await read { db in try Self.taskKey(db, for: name, patient: scope) }
    }

    /// ``taskKey(for:)`` for several names.
    public func taskKeys(for names: some Sequence<String>) async throws(CareStoreError) -> [String] {
        let scope = patientScope
        let names = Array(names)
        return try await read { db in try names.map { name in try Self.taskKey(db, for: name, patient: scope) } }
    }

    static func taskKey(_ db: Database, for name: String, patient scope: String?) throws -> String {
        let versions = try TaskVersions.load(db)
        let named = versions.keys(named: name).filter { scope == nil || $0.patient == scope }
        if named.count == 1 { return named[0].key }
        if named.count > 1 {
            let patients = named.map { $0.patient ?? "none" }.joined(separator: ", ")
            throw CareStoreError(
                .patientRequired,
                "task '\(name)' exists for \(named.count) patients (\(patients)): say whose with --patient ID",
                taskID: name
            )
        }
        if let scope, let owner = versions.versions(of: name).last?.patient, owner != scope {
            throw CareStoreError(
                .taskNotFound,
                "task '\(name)' is patient '\(owner)'s, not '\(scope)'s",
                taskID: name
            )
        }
        return name
    }

    /// The newest version of every task that is not deleted, by id.
    public func tasks() async throws(CareStoreError) -> [StoredTask] {
        let scope = patientScope
        return try await read { db in try TaskVersions.load(db, patient: scope).current.map(\.storedTask) }
    }

    /// The earliest effective date of any task version, deleted tasks included (of the scoped patient): where
    /// the store's events, and so its outcomes, can begin. Nil without tasks.
    public func earliestTaskEffectiveDate() async throws(CareStoreError) -> Date? {
        let scope = patientScope
        let versions = try await read { db in try TaskVersions.load(db, patient: scope) }
        return versions.all.map(\.effective).min()
    }

    /// Every version of one task, oldest first (tombstone included).
    public func taskVersions(id: String) async throws(CareStoreError) -> [StoredTask] {
        try await read { db in try TaskVersions.load(db).versions(of: id).map(\.storedTask) }
    }

    /// The ids of every task of the scoped patient (every patient's when unscoped), deleted ones included.
    public func taskIDs() async throws(CareStoreError) -> Set<String> {
        let scope = patientScope
        return try await read { db in Set(try TaskVersions.load(db, patient: scope).ranges.keys) }
    }

    /// What alert rules are evaluated against, in one read whatever the number of tasks: every version (the
    /// whole chain, tombstones included, oldest first) of each task of the scoped patient (every patient's when
    /// unscoped) that carries an alert rule in some version, or that links to a quantity type (to one of
    /// `types`, when given: a reading out of the device's range alerts on every task linked to its type); each
    /// with when the store first saw its patient.
    public func ruleTaskVersions(
        linkedTo types: Set<QuantityType>? = nil
    ) async throws(CareStoreError)
        -> [StoredTask]
    {
        let scope = patientScope
        var condition = "alerts IS NOT NULL OR linkageType IS NOT NULL"
        if let types {
            let names = types.map { "'\($0.rawValue.replacingOccurrences(of: "'", with: "''"))'" }.sorted()
            condition =
                "alerts IS NOT NULL" + (names.isEmpty ? "" : " OR linkageType IN (\(names.joined(separator: ", ")))")
        }
        let filter = "id IN (SELECT id FROM task WHERE \(condition))"
        return try await read { db in
            var since: [String: Date] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, MIN(createdDate) FROM patient GROUP BY id") {
                since[row[0]] = Date(timeIntervalSince1970: row[1])
            }
            return try TaskVersions.load(db, patient: scope, filter: filter).all.map { version in
                var stored = version.storedTask
                stored.patientSince = version.patient.flatMap { since[$0] }
                return stored
            }
        }
    }

    // MARK: - Internals

    /// ``applyPlan(_:at:)`` in one transaction: the file's patient, plan and contacts, then its tasks; a failure
    /// anywhere applies nothing.
    static func applyPlan(
        _ db: Database,
        _ plan: CarePlanDocument,
        scope: String?,
        zone: TimeZone,
        now: Date
    ) throws -> PlanApplyReport {
        // A file naming its patient adds or versions the patient first (that may adopt the implicit patient's
        // tasks); a file for another patient than --patient is refused.
        var scope = scope
        if let patient = plan.patient {
            if let scope, scope != patient.id {
                throw CareStoreError(
                    .invalidPatient,
                    "the plan file is for patient '\(patient.id)', not '\(scope)' (--patient)"
                )
            }
            _ = try savePatient(db, patient, plan: plan.plan, now: now)
            scope = patient.id
        } else if let filePlan = plan.plan {
            guard let scope else {
                throw CareStoreError(
                    .patientRequired,
                    "plan '\(filePlan.id)': the file names no patient; give --patient"
                )
            }
            var filePlan = filePlan
            filePlan.patientID = scope
            _ = try savePlanOfPatient(db, filePlan, now: now)
        }
        let planID = plan.plan?.id
        let contactPlanID = try planID ?? defaultPlan(db, patientID: scope)
        var contacts: [CareContact] = []
        for var contact in plan.contacts {
            guard let contactPlan = contactPlanID else {
                throw CareStoreError(.patientRequired, "contact '\(contact.id)': no plan to add it to; give --patient")
            }
            contact.planID = contactPlan
            contacts.append(contact)
        }
        _ = try saveContacts(db, contacts, now: now)
        var report = PlanApplyReport()
        if let retention = plan.retention { try setRetentionPolicy(db, retention, at: now) }
        var added: [UUID] = []
        let versions = try TaskVersions.load(db)
        let targetPlan = contactPlanID
        let patientCount = try livePatients(db).count
        if targetPlan == nil, patientCount > 1, !plan.tasks.isEmpty {
            throw CareStoreError(
                .patientRequired,
                "the store has \(patientCount) patients: say whose plan this is with --patient ID or a \"patient\" in the file"
            )
        }
        let targetPatient = try targetPlan.flatMap { try planPatient(db, planID: $0) }
        var chains: [String: (key: String, chain: [TaskVersion])] = [:]
        for task in plan.tasks {
            chains[task.id] = try chainForPlan(
                db,
                name: task.id,
                versions: versions,
                plan: targetPlan,
                patient: targetPatient
            )
        }
        for task in plan.tasks {
            guard let (key, chain) = chains[task.id] else { continue }
            if let newest = chain.last, newest.record.deletedDate == nil, sameContent(newest, task) {
                report.unchanged.append(task.id)
                continue
            }
            added.append(
                try insertVersion(
                    db,
                    task: task,
                    key: key,
                    chain: chain,
                    zone: zone,
                    now: now,
                    planID: targetPlan
                )
            )
            if chain.isEmpty { report.added.append(task.id) } else { report.updated.append(task.id) }
            if key != task.id { report.keys[task.id] = key }
        }
        report.eventsUpdated = try deriveFromStoredSamples(db, versions: added, zone: zone, now: now).count
        return report
    }

    /// Whether the plan file's `task` says what the stored version says, ignoring the effective date and the key
    /// (re-applying the same plan is a no-op).
    static func sameContent(_ stored: TaskVersion, _ task: CareTask) -> Bool {
        var a = stored.task
        a.id = stored.name
        var b = task
        a.effectiveDate = nil
        b.effectiveDate = nil
        return a == b
    }

    /// Checks the versioning guard and inserts the next version of `task` (`task.id` is its name) under `key`.
    static func insertVersion(
        _ db: Database,
        task: CareTask,
        key: String,
        chain: [TaskVersion],
        zone: TimeZone,
        now: Date,
        planID: String? = nil
    ) throws -> UUID {
        if let problem = task.validationProblem {
            throw CareStoreError(
                .invalidTask,
                "task '\(task.id)': \(problem.field): \(problem.message)",
                taskID: task.id
            )
        }
        let effective = task.effectiveDate(bridgeZone: zone)
        if !chain.isEmpty,
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT taskUUID, occurrence, eventStart FROM outcome
                    WHERE taskID = ? ORDER BY eventStart DESC LIMIT 1
                    """,
                arguments: [key]
            )
        {
            let latest = Date(timeIntervalSince1970: row["eventStart"])
            if effective <= latest {
                let version = UUID(uuidString: row["taskUUID"])
                let utc = TimeZone(secondsFromGMT: 0)!
                throw CareStoreError(
                    .versionWouldShadowOutcomes,
                    "task '\(task.id)': a new version effective \(Timestamp.format(effective, in: utc)) would take effect "
                        + "at or before the event of \(Timestamp.format(latest, in: utc)) (version "
                        + "\(row["taskUUID"] as String), occurrence \(row["occurrence"] as Int)) that already has an "
                        + "outcome; to reschedule, give the task an effectiveDate after \(Timestamp.format(latest, in: utc))",
                    taskID: task.id,
                    version: version,
                    date: latest,
                    occurrence: row["occurrence"]
                )
            }
        }
        let uuid = UUID()
        let previous = chain.last
        var stored = task
        stored.effectiveDate = effective
        let record = TaskRecord(
            task: stored,
            uuid: uuid,
            versionNumber: (previous?.record.versionNumber ?? 0) + 1,
            previous: previous?.record.uuid,
            effective: effective,
            created: now,
            deleted: nil,
            carePlanID: previous?.record.carePlanID ?? planID,
            key: key
        )
        try record.insert(db)
        return uuid
    }

    /// The patient of a plan (its newest version), nil for an unknown plan.
    static func planPatient(_ db: Database, planID: String) throws -> String? {
        try String.fetchOne(
            db,
            sql: "SELECT patientID FROM carePlan WHERE id = ? ORDER BY versionNumber DESC LIMIT 1",
            arguments: [planID]
        )
    }

    /// The key and the versions of the task `name` of `plan`: its existing chain, or an empty one under a new key
    /// (the name, unless another patient's task holds it: then `NAME@PATIENT`).
    /// - Throws: ``CareStoreError`` `.invalidPatient` when another plan of the same patient (or a store-wide task
    ///   without a plan) uses the name: names are unique per patient.
    static func chainForPlan(
        _ db: Database,
        name: String,
        versions: TaskVersions,
        plan: String?,
        patient: String?
    ) throws -> (key: String, chain: [TaskVersion]) {
        let named = versions.keys(named: name)
        for (key, owner) in named {
            let chain = versions.versions(of: key)
            let existingPlan = chain.last?.record.carePlanID
            if existingPlan == plan { return (key, chain) }
            if owner == patient || owner == nil || patient == nil {
                throw CareStoreError(
                    .invalidPatient,
                    "task '\(name)' belongs to plan '\(existingPlan ?? "none")', not '\(plan ?? "none")': a patient's "
                        + "task ids are unique across their plans; give this task another id",
                    taskID: name
                )
            }
        }
        guard versions.ranges[name] != nil, let patient else { return (name, []) }
        let key = "\(name)@\(patient)"
        guard versions.ranges[key] == nil else {
            throw CareStoreError(
                .invalidPatient,
                "task '\(name)' of patient '\(patient)': its key '\(key)' is another task's id; give this task "
                    + "another id",
                taskID: name
            )
        }
        return (key, [])
    }

    /// Derives outcomes of newly added linked versions from samples already stored in their regions.
    static func deriveFromStoredSamples(
        _ db: Database,
        versions added: [UUID],
        zone: TimeZone,
        now: Date
    ) throws
        -> [EventKey]
    {
        guard !added.isEmpty else { return [] }
        let versions = try TaskVersions.load(db)
        var matcher = SampleMatcher(versions: versions, bridgeZone: zone)
        let wanted = Set(added)
        for version in versions.all where wanted.contains(version.uuid) {
            guard !version.isTombstone, !version.isShadowed, let linkage = version.task.linkage,
                version.task.kind == .assessment
            else { continue }
            let starts = try Int64.fetchCursor(
                db,
                sql: """
                    SELECT DISTINCT r.start FROM sampleRow AS r
                    WHERE r.type = (SELECT code FROM quantityType WHERE name = ?) AND r.start >= ? AND r.start < ?
                    AND (r.state IS NULL OR r.state & \(SampleTable.deletedBit) = 0) AND \(SampleTable.patientCondition)
                    ORDER BY r.start
                    """,
                arguments: [
                    linkage.type.rawValue, SampleTable.millisecondsCeiling(version.effective),
                    version.until.map(SampleTable.millisecondsCeiling) ?? Int64.max, version.patient,
                ]
            )
            while let start = try starts.next() {
                for event in version.task.schedule.storeEvents(
                    containing: SampleTable.date(start),
                    zone: zone
                ) {
                    matcher.touch(version: version, event: event)
                }
            }
            // Vacuumed samples: the events their aggregates fall in.
            for start in try aggregateStarts(db, type: linkage.type, version: version) {
                for event in version.task.schedule.storeEvents(containing: start, zone: zone) {
                    matcher.touch(version: version, event: event)
                }
            }
        }
        return try matcher.apply(db, now: now)
    }

    static func storedTask(_ db: Database, uuid: UUID) throws -> StoredTask {
        let versions = try TaskVersions.load(db)
        guard let version = versions.all.first(where: { $0.uuid == uuid }) else {
            throw CareStoreError(.taskNotFound, "task version \(uuid) vanished")
        }
        return version.storedTask
    }
}

extension TaskVersion {
    var storedTask: StoredTask {
        StoredTask(
            task: task,
            version: uuid,
            versionNumber: record.versionNumber,
            previousVersion: record.previousVersionUUID.flatMap(UUID.init(uuidString:)),
            effectiveDate: record.effectiveDate,
            createdDate: record.createdDate,
            deletedDate: record.deletedDate,
            patientID: patient,
            name: name
        )
    }
}
