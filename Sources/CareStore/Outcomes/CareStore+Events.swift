import BridgeCore
public import CarePlan
public import Foundation
public import GRDB

extension CareStore {
    /// The events overlapping the query interval, with outcomes, sorted by start, then task id, then occurrence.
    ///
    /// Events are computed from each task version's schedule for the part of the interval in which that version
    /// is in force; outcomes are fetched by (version, occurrence range) through an index. The cost depends on the
    /// interval and the number of tasks, not on how much history the store holds.
    public func events(matching query: EventQuery) async throws(CareStoreError) -> [CareEvent] {
        let zone = bridgeZone
        let patient = patientScope
        return try await read { db in try Self.events(db, query: query, zone: zone, patient: patient) }
    }

    /// The events overlapping the query interval of each of these patients, each patient's sorted as
    /// ``events(matching:)`` sorts them (a patient without events is absent). One read: the task versions are
    /// loaded once, so a ward's dashboard costs one pass over the store's tasks, not one per patient.
    public func events(
        matching query: EventQuery,
        patients: Set<String>
    ) async throws(CareStoreError)
        -> [String: [CareEvent]]
    {
        let zone = bridgeZone
        let scope = patientScope
        return try await read { db in
            guard query.from < query.to else { return [:] }
            let versions = try TaskVersions.load(db, patient: scope).all.filter { version in
                version.patient.map(patients.contains) ?? false
            }
            let byPatient = Dictionary(grouping: versions) { $0.patient ?? "" }
            return try byPatient.mapValues { try Self.events(db, versions: $0, query: query, zone: zone) }
        }
    }

    /// A number that changes whenever an outcome of the scoped patient's events overlapping `[from, to)` is
    /// recorded, changed or removed (its values, note and reason included), or the patient's plan gets a task
    /// version: a page showing that day asks for it after every store change and updates only when it moved.
    /// Stable within one process only (it is a hash).
    public func outcomeStamp(from: Date, to: Date) async throws(CareStoreError) -> Int {
        let scope = patientScope
        return try await read { db in
            var sql = """
                SELECT o.id, o.updatedDate, o.note, o.notDoneReason, v.position, v.value, v.recordedAt, v.text
                FROM outcome o LEFT JOIN outcomeValue v ON v.outcomeID = o.id
                WHERE o.eventStart < ? AND o.eventEnd > ?
                """
            var arguments: StatementArguments = [to.timeIntervalSince1970, from.timeIntervalSince1970]
            if let scope {
                sql += " AND o.\(Self.patientTaskCondition)"
                arguments += [scope]
            }
            var hasher = Hasher()
            let rows = try Row.fetchCursor(db, sql: sql + " ORDER BY o.id, v.position", arguments: arguments)
            while let row = try rows.next() {
                hasher.combine(row[0] as Int64)
                hasher.combine(row[1] as Double)
                hasher.combine(row[2] as String?)
                hasher.combine(row[3] as String?)
                hasher.combine(row[4] as Int64?)
                hasher.combine(row[5] as Double?)
                hasher.combine(row[6] as Double?)
                hasher.combine(row[7] as String?)
            }
            // The patient's plan: a new task version or a deleted task changes the day's events themselves.
            var plan = "SELECT count(*), max(task.rowid) FROM task"
            if scope != nil {
                plan += " JOIN carePlan ON carePlan.id = task.carePlanID WHERE carePlan.patientID = ?"
            }
            if let versions = try Row.fetchOne(db, sql: plan, arguments: scope.map { [$0] } ?? []) {
                hasher.combine(versions[0] as Int64)
                hasher.combine(versions[1] as Int64?)
            }
            return hasher.finalize()
        }
    }

    /// These events with their outcomes (the events ``IngestReport/updatedEvents`` names), sorted as
    /// ``events(matching:)`` sorts; a key whose version or occurrence no longer exists is left out.
    ///
    /// Each event is computed from its own version's schedule: no interval is scanned.
    public func events(keys: some Collection<EventKey>) async throws(CareStoreError) -> [CareEvent] {
        guard !keys.isEmpty else { return [] }
        let zone = bridgeZone
        let keys = Set(keys)
        return try await read { db in
            let versions = try TaskVersions.load(db)
            let byUUID = Dictionary(versions.all.map { ($0.uuid, $0) }, uniquingKeysWith: { first, _ in first })
            var found: [CareEvent] = []
            for key in keys {
                guard key.occurrence >= 0, let version = byUUID[key.taskVersion], !version.isTombstone,
                    let scheduled = version.task.schedule.storeEvent(occurrence: key.occurrence, zone: zone)
                else { continue }
                found += try Self.events(db, version: version, scheduled: [scheduled], zone: zone)
            }
            return found.sorted { ($0.start, $0.taskID, $0.occurrence) < ($1.start, $1.taskID, $1.occurrence) }
        }
    }

    /// The same events as ``events(matching:)``, again after every change that touches them (GRDB
    /// `ValueObservation`: the whole result each time, duplicates removed).
    public func observeEvents(matching query: EventQuery) -> AsyncValueObservation<[CareEvent]> {
        let zone = bridgeZone
        let patient = patientScope
        return ValueObservation.tracking { db in try Self.events(db, query: query, zone: zone, patient: patient) }
            .removeDuplicates()
            .values(in: databaseWriter)
    }

    /// Completed and total events per calendar day for tasks that impact adherence.
    /// - Parameters:
    ///   - from: the first instant considered; days are listed from its day in the bridge's zone.
    ///   - to: the end of the interval (exclusive).
    ///   - kinds: only these kinds of task (all when empty).
    public func adherence(
        from: Date,
        to: Date,
        kinds: Set<TaskKind> = []
    ) async throws(CareStoreError) -> [DailyAdherence] {
        let zone = bridgeZone
        let patient = patientScope
        let query = EventQuery(from: from, to: to, kinds: kinds)
        let events = try await read { db in try Self.events(db, query: query, zone: zone, patient: patient) }
            .filter { $0.impactsAdherence && $0.start >= from }
        var buckets: [String: (completed: Int, total: Int, progress: Double)] = [:]
        var day = WallClockTime(from, in: bridgeZone).startOfDay
        while day.date(in: bridgeZone) < to {
            buckets[day.dayKey] = (0, 0, 0)
            day = WallClockTime(day.date(in: bridgeZone).addingTimeInterval(36 * 3600), in: bridgeZone).startOfDay
        }
        for event in events {
            let key = WallClockTime(event.start, in: event.timeZone).dayKey
            var bucket = buckets[key] ?? (0, 0, 0)
            bucket.total += 1
            bucket.progress += event.progress
            if event.isCompleted { bucket.completed += 1 }
            buckets[key] = bucket
        }
        return buckets.keys.sorted().map { key in
            let bucket = buckets[key]!
            return DailyAdherence(
                day: key,
                completed: bucket.completed,
                total: bucket.total,
                progress: bucket.total == 0 ? nil : bucket.progress / Double(bucket.total)
            )
        }
    }

    /// Completes an event by hand (interventions, and assessments without a linkage).
    /// - Parameters:
    ///   - taskID: the task.
    ///   - occurrence: the occurrence index in the version in force at `at`; nil = the first event containing
    ///     `at` that is not done yet (a day with four doses), else the first containing it.
    ///   - at: when it was done (default now).
    /// - Returns: the event with its outcome. Completing a completed event changes nothing.
    /// - Throws: ``CareStoreError`` `.taskNotFound`, `.eventNotFound`, `.wrongTaskKind` (linked assessments are
    ///   completed by samples), `.invalidAnswer` (the task asks for an answer).
    @discardableResult
    public func complete(
        taskID: String,
        occurrence: Int? = nil,
        at: Date = Date(),
        now: Date = Date()
    ) async throws(CareStoreError) -> CareEvent {
        try await complete(taskID: taskID, occurrence: occurrence, at: at, entry: Completion(), now: now).event
    }

    /// Removes the outcome of a hand-completed event, keeping what it held, who undid it and when in the undo list
    /// (``outcomeUndos(from:to:)``).
    /// - Parameters:
    ///   - author: the care app user who undid it; nil for the command line.
    ///   - now: when it was undone.
    /// - Returns: the event, now without outcome.
    /// - Throws: as ``complete(taskID:occurrence:at:now:)``.
    @discardableResult
    public func uncomplete(
        taskID: String,
        occurrence: Int? = nil,
        at: Date = Date(),
        author: String? = nil,
        now: Date = Date()
    ) async throws(CareStoreError) -> CareEvent {
        let zone = bridgeZone
        let (event, changed) = try await write { db in
            try Self.removeOutcome(
                db,
                taskID: taskID,
                occurrence: occurrence,
                at: at,
                author: author,
                now: now,
                zone: zone
            )
        }
        if changed { broadcaster.publish([.eventUpdated(event.key)]) }
        return event
    }

    /// The undone outcomes of the scoped patient's (or every patient's) events that start in `from..<to`, oldest
    /// undo first.
    public func outcomeUndos(from: Date, to: Date) async throws(CareStoreError) -> [OutcomeUndo] {
        let scope = patientScope
        return try await read { db in
            var sql =
                "SELECT taskID, occurrence, eventStart, undoneAt, author, outcome FROM outcomeUndo "
                + "WHERE eventStart >= ? AND eventStart < ?"
            var arguments: StatementArguments = [from.timeIntervalSince1970, to.timeIntervalSince1970]
            if let scope {
                sql += " AND \(Self.patientTaskCondition)"
                arguments += [scope]
            }
            return try Row.fetchAll(db, sql: sql + " ORDER BY undoneAt, id", arguments: arguments).map { row in
                OutcomeUndo(
                    taskID: row["taskID"],
                    occurrence: row["occurrence"],
                    eventStart: Date(timeIntervalSince1970: row["eventStart"]),
                    undoneAt: Date(timeIntervalSince1970: row["undoneAt"]),
                    author: row["author"],
                    outcome: row["outcome"]
                )
            }
        }
    }

    private static func removeOutcome(
        _ db: Database,
        taskID: String,
        occurrence: Int?,
        at: Date,
        author: String?,
        now: Date,
        zone: TimeZone
    ) throws -> (CareEvent, Bool) {
        let (version, scheduled) = try Self.resolveEvent(
            db,
            taskID: taskID,
            occurrence: occurrence,
            at: at,
            zone: zone
        )
        if let removed = try Self.events(db, version: version, scheduled: [scheduled], zone: zone)[0].outcome {
            try db.execute(
                sql: """
                    INSERT INTO outcomeUndo (taskUUID, taskID, occurrence, eventStart, undoneAt, author, outcome)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    version.record.uuid, taskID, scheduled.occurrence, scheduled.start.timeIntervalSince1970,
                    now.timeIntervalSince1970, author, OutcomeUndo.json(removed),
                ]
            )
        }
        try db.execute(
            sql: "DELETE FROM outcome WHERE taskUUID = ? AND occurrence = ?",
            arguments: [version.record.uuid, scheduled.occurrence]
        )
        let changed = db.changesCount > 0
        return (try Self.events(db, version: version, scheduled: [scheduled], zone: zone)[0], changed)
    }

    // MARK: - Internals

    static func resolveEvent(
        _ db: Database,
        taskID: String,
        occurrence: Int?,
        at: Date,
        zone: TimeZone,
        lateToday: Bool = false
    ) throws
        -> (TaskVersion, ScheduledEvent)
    {
        let versions = try TaskVersions.load(db)
        let chain = versions.versions(of: taskID)
        let utc = TimeZone(secondsFromGMT: 0)!
        guard !chain.isEmpty else { throw CareStoreError(.taskNotFound, "no task '\(taskID)'", taskID: taskID) }
        guard let version = versions.version(of: taskID, at: at) else {
            if chain.last?.isTombstone == true {
                throw CareStoreError(.taskDeleted, "task '\(taskID)' is deleted", taskID: taskID, date: at)
            }
            throw CareStoreError(
                .eventNotFound,
                "task '\(taskID)' is not in force at \(Timestamp.format(at, in: utc)) (its first version takes effect "
                    + "\(Timestamp.format(chain[0].effective, in: utc)))",
                taskID: taskID,
                date: at
            )
        }
        if version.task.linkage != nil {
            throw CareStoreError(
                .wrongTaskKind,
                "task '\(taskID)' is completed by \(version.task.linkage!.type.title) samples; record one with "
                    + "`carebridge ingest` instead",
                taskID: taskID,
                version: version.uuid
            )
        }
        let schedule = version.task.schedule
        if let occurrence {
            guard occurrence >= 0, let event = schedule.storeEvent(occurrence: occurrence, zone: zone),
                event.end >= version.effective, version.until.map({ event.start < $0 }) ?? true
            else {
                throw CareStoreError(
                    .eventNotFound,
                    "task '\(taskID)' (version \(version.record.versionNumber)) has no occurrence \(occurrence)",
                    taskID: taskID,
                    version: version.uuid,
                    occurrence: occurrence
                )
            }
            return (version, event)
        }
        guard let event = schedule.storeEvents(containing: at, zone: zone).first else {
            let day = try eventsOfDay(db, version: version, at: at, zone: zone)
            if lateToday, let late = day.last(where: { $0.event.start <= at && !$0.recorded }) {
                return (version, late.event)
            }
            throw CareStoreError(
                .eventNotFound,
                "task '\(taskID)' has no event at \(Timestamp.format(at, in: zone))"
                    + (lateToday ? " and no earlier one that day is still open" : "") + "; "
                    + describeDay(day, zone: zone) + "; pass --occurrence N or an --at inside a window",
                taskID: taskID,
                version: version.uuid,
                date: at
            )
        }
        return (version, event)
    }

    /// The events of `version` on the calendar day of `at` (in `zone`), in order, and whether each has an
    /// outcome (done, answered, or marked not done).
    static func eventsOfDay(
        _ db: Database,
        version: TaskVersion,
        at: Date,
        zone: TimeZone
    ) throws -> [(event: ScheduledEvent, recorded: Bool)] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let start = calendar.startOfDay(for: at)
        let end = calendar.date(byAdding: .day, value: 1, to: start) ?? start.addingTimeInterval(86_400)
        let events = version.task.schedule.storeEvents(from: start, to: end, zone: zone).filter { event in
            event.end >= version.effective && (version.until.map { event.start < $0 } ?? true)
        }
        guard let first = events.first, let last = events.last else { return [] }
        let recorded = try Set(
            Int.fetchAll(
                db,
                sql: "SELECT occurrence FROM outcome WHERE taskUUID = ? AND occurrence BETWEEN ? AND ?",
                arguments: [version.record.uuid, first.occurrence, last.occurrence]
            )
        )
        return events.map { ($0, recorded.contains($0.occurrence)) }
    }

    /// `its events that day: #9 08:00–10:00 (done), #10 20:00–22:00 (open)`, or that it has none.
    static func describeDay(_ day: [(event: ScheduledEvent, recorded: Bool)], zone: TimeZone) -> String {
        guard !day.isEmpty else { return "it has no event that day" }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "HH:mm"
        let listed = day.map { entry in
            let window =
                entry.event.isAllDay
                ? "all day" : "\(formatter.string(from: entry.event.start))–\(formatter.string(from: entry.event.end))"
            return "#\(entry.event.occurrence) \(window) (\(entry.recorded ? "recorded" : "open"))"
        }
        return "its events that day: " + listed.joined(separator: ", ")
    }

    static func events(_ db: Database, query: EventQuery, zone: TimeZone, patient: String? = nil) throws -> [CareEvent]
    {
        guard query.from < query.to else { return [] }
        return try events(db, versions: TaskVersions.load(db, patient: patient).all, query: query, zone: zone)
    }

    /// The events of these versions in the query interval, sorted as ``events(matching:)`` sorts.
    static func events(
        _ db: Database,
        versions: [TaskVersion],
        query: EventQuery,
        zone: TimeZone
    ) throws
        -> [CareEvent]
    {
        try merged(versions: versions, query: query, zone: zone) { version, scheduled in
            try events(db, version: version, scheduled: scheduled, zone: zone)
        }
    }

    /// The events rule of every engine: each live version (not deleted, not shadowed) contributes its schedule's
    /// events in the part of `[from, to)` where it is in force, `join` adds their outcomes, and the whole is
    /// sorted by start, then task id, then occurrence. Pure but for `join` (the SQLite store reads outcomes there,
    /// the hub hands over those its bridges sent).
    static func merged(
        versions: [TaskVersion],
        query: EventQuery,
        zone: TimeZone,
        join: (TaskVersion, [ScheduledEvent]) throws -> [CareEvent]
    ) rethrows -> [CareEvent] {
        // Versions in task-id order, so sorting needs only (start, rank, occurrence) and no string comparisons.
        let live = versions.filter { version in
            !version.isTombstone && !version.isShadowed
                && (query.taskIDs.isEmpty || query.taskIDs.contains(version.record.id))
                && (query.kinds.isEmpty || query.kinds.contains(version.task.kind))
        }.sorted { ($0.record.id, $0.record.versionNumber) < ($1.record.id, $1.record.versionNumber) }
        var perVersion: [[CareEvent]] = []
        var keys: [(start: Double, rank: Int, occurrence: Int, index: Int)] = []
        for (rank, version) in live.enumerated() {
            guard let (lower, upper) = version.clip(from: query.from, to: query.to) else { continue }
            let scheduled = version.task.schedule.storeEvents(from: lower, to: upper, zone: zone)
            let events = try join(version, scheduled)
            let list = perVersion.count
            for (index, event) in events.enumerated() {
                keys.append((event.start.timeIntervalSince1970, rank, event.occurrence, list << 32 | index))
            }
            perVersion.append(events)
        }
        keys.sort { ($0.start, $0.rank, $0.occurrence) < ($1.start, $1.rank, $1.occurrence) }
        return keys.map { perVersion[$0.index >> 32][$0.index & 0xFFFF_FFFF] }
    }

    /// Joins computed events of one version with their outcomes (two indexed queries).
    static func events(
        _ db: Database,
        version: TaskVersion,
        scheduled: [ScheduledEvent],
        zone: TimeZone
    ) throws
        -> [CareEvent]
    {
        guard let low = scheduled.map(\.occurrence).min(), let high = scheduled.map(\.occurrence).max() else {
            return []
        }
        // One indexed range scan: outcomes of this version in the occurrence range, each with its values in
        // order (the unique (taskUUID, occurrence) index and the outcomeValue primary key give the order).
        let statement = try db.cachedStatement(
            sql: """
                SELECT o.occurrence, o.createdDate, o.updatedDate,
                       v.value, v.unit, v.measuredAt, v.sampleID, v.recordedAt, v.text, o.note, o.notDoneReason, v.comparator,
                       o.author
                FROM outcome o LEFT JOIN outcomeValue v ON v.outcomeID = o.id
                WHERE o.taskUUID = ? AND o.occurrence BETWEEN ? AND ?
                ORDER BY o.occurrence, v.position
                """
        )
        var byOccurrence: [Int: Outcome] = [:]
        var current: (occurrence: Int, outcome: Outcome)?
        let rows = try Row.fetchCursor(statement, arguments: [version.record.uuid, low, high])
        while let row = try rows.next() {
            let occurrence: Int = row[0]
            if current?.occurrence != occurrence {
                if let current { byOccurrence[current.occurrence] = current.outcome }
                current = (
                    occurrence,
                    Outcome(
                        values: [],
                        createdDate: Date(timeIntervalSince1970: row[1]),
                        updatedDate: Date(timeIntervalSince1970: row[2]),
                        note: row[9],
                        notDoneReason: row[10],
                        author: row[12]
                    )
                )
            }
            guard let value: Double = row[3] else { continue }
            current?.outcome.values.append(
                OutcomeValue(
                    value: value,
                    unit: HealthUnit(rawValue: row[4]),
                    measuredAt: Date(timeIntervalSince1970: row[5]),
                    sampleID: Self.storedSampleID(row[6]),
                    recordedAt: Date(timeIntervalSince1970: row[7]),
                    text: row[8],
                    comparator: (row[11] as String?).flatMap(ValueComparator.init(rawValue:))
                )
            )
        }
        if let current { byOccurrence[current.occurrence] = current.outcome }
        return careEvents(version: version, scheduled: scheduled, zone: zone, outcomes: byOccurrence)
    }

    /// The events of one version with their outcomes by occurrence (none: not recorded).
    static func careEvents(
        version: TaskVersion,
        scheduled: [ScheduledEvent],
        zone: TimeZone,
        outcomes byOccurrence: [Int: Outcome]
    ) -> [CareEvent] {
        let task = version.task
        let info = EventTaskInfo(
            title: task.title,
            kind: task.kind,
            impactsAdherence: task.impactsAdherence,
            timeZone: task.schedule.timeZonePolicy.zone(bridge: zone),
            elements: task.schedule.elements.map { ($0.text, $0.targetValues) },
            answer: task.answer,
            name: version.name == task.id ? nil : version.name
        )
        return scheduled.map { event in
            CareEvent(
                key: EventKey(taskID: task.id, taskVersion: version.uuid, occurrence: event.occurrence),
                start: event.start,
                end: event.end,
                isAllDay: event.isAllDay,
                elementIndex: event.elementIndex,
                outcome: byOccurrence[event.occurrence],
                info: info
            )
        }
    }
}

extension WallClockTime {
    /// `YYYY-MM-DD`.
    var dayKey: String { String(description.prefix(10)) }
}

extension CareStore {
    /// The sample id an outcome value names: 16 bytes since `"v9-outcome-sample-id-blob"`; nil for none (or for
    /// a value that is not a sample id).
    static func storedSampleID(_ value: DatabaseValue) -> UUID? {
        guard case .blob(let bytes) = value.storage else { return nil }
        return UUID(bytes: bytes)
    }
}
