public import BridgeCore
import CarePlan
public import Foundation
import GRDB
import Logging

extension CareStore {
    /// The outbox channel MQTT publishing uses.
    public static let mqttOutboxChannel = "mqtt"
    /// The outbox channel of the hub: samples, and outcomes too (``OutcomeOutboxSchema``).
    public static let hubOutboxChannel = OutcomeOutboxSchema.channel

    /// Starts queueing every newly stored sample for `channel`. From now on each insert into the store also
    /// adds an outbox entry in the same transaction (written by the sample inserter, which every path that
    /// stores a sample goes through) (also when stored by a process without a publisher), until
    /// ``disableOutbox(channel:)``. Enabling again keeps what is pending.
    ///
    /// - Parameters:
    ///   - includingStored: when the channel is enabled now (not already), also queue every live sample the store
    ///     holds (quarantined ones too), oldest stored first (a hub wants a bridge's history; a broker only what is
    ///     new); for the hub channel every task version before them and every outcome after them, oldest write
    ///     first. The samples are queued in one statement without being read into memory
    ///     (``OutboxChannelTypesSchema/enqueueStored(_:channel:types:where:)``).
    ///   - sampleTypes: the only types the channel takes (nil: every type). Enabling again with other types
    ///     changes what is queued from now on; what is pending stays.
    /// - Throws: ``CareStoreError`` `.database`; `.corruptRow` (nothing queued) when queueing the stored samples
    ///   meets one of a type this release does not know.
    public func enableOutbox(
        channel: String = CareStore.mqttOutboxChannel,
        at date: Date = Date(),
        includingStored: Bool = false,
        sampleTypes: Set<QuantityType>? = nil
    )
        async throws(CareStoreError)
    {
        try await write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO outboxChannel (name, enabledAt, sampleTypes) VALUES (?, ?, ?)",
                arguments: [channel, date.timeIntervalSince1970, OutboxChannelTypesSchema.column(sampleTypes)]
            )
            let added = db.changesCount == 1
            if !added {
                try db.execute(
                    sql: "UPDATE outboxChannel SET sampleTypes = ? WHERE name = ?",
                    arguments: [OutboxChannelTypesSchema.column(sampleTypes), channel]
                )
            }
            guard includingStored, added else { return }
            // The hub's plan first: task versions, then what was recorded under them.
            if channel == Self.hubOutboxChannel { try TaskVersionOutboxSchema.queueStored(db) }
            // Every live sample, in the order it was stored (then measured): the channel's history, in SQL.
            try OutboxChannelTypesSchema.enqueueStored(db, channel: channel, types: sampleTypes)
            if channel == Self.hubOutboxChannel { try OutcomeOutboxSchema.queueStored(db) }
        }
    }

    /// Stops queueing samples for `channel` and drops what is pending.
    /// - Returns: how many pending entries were dropped.
    @discardableResult
    public func disableOutbox(channel: String = CareStore.mqttOutboxChannel) async throws(CareStoreError) -> Int {
        try await write { db in
            try db.execute(sql: "DELETE FROM outboxChannel WHERE name = ?", arguments: [channel])
            try db.execute(sql: "DELETE FROM outboxEntry WHERE channel = ?", arguments: [channel])
            return db.changesCount
        }
    }

    /// Drops every pending entry of `channel` (they will not be delivered); queueing stays as it was.
    /// - Returns: how many entries were dropped.
    @discardableResult
    public func clearOutbox(channel: String = CareStore.mqttOutboxChannel) async throws(CareStoreError) -> Int {
        try await write { db in
            try db.execute(sql: "DELETE FROM outboxEntry WHERE channel = ?", arguments: [channel])
            return db.changesCount
        }
    }

    /// The oldest pending entries of `channel`, in delivery order, with their samples (read in one transaction).
    /// - Parameter limit: at most this many entries.
    public func pendingOutbox(
        channel: String = CareStore.mqttOutboxChannel,
        limit: Int
    ) async throws(CareStoreError)
        -> [OutboxEntry]
    {
        try await read { db in try Self.pendingOutbox(db, channel: channel, limit: limit) }
    }

    /// ``pendingOutbox(channel:limit:)`` inside a transaction.
    static func pendingOutbox(_ db: Database, channel: String, limit: Int) throws -> [OutboxEntry] {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT sequence, sampleID, enqueuedAt FROM outboxEntry
                WHERE channel = ? ORDER BY sequence LIMIT ?
                """,
            arguments: [channel, limit]
        )
        var reader = try SampleRowReader(db)
        var versions: [String: TaskVersion]?
        var entries: [OutboxEntry] = []
        entries.reserveCapacity(rows.count)
        for row in rows {
            let key: DatabaseValue = row["sampleID"]
            let id = OutboxSchema.sampleUUID(key)
            let enqueuedAt: Double = row["enqueuedAt"]
            var outcome: OutboxOutcome?
            var taskVersion: StoredTask?
            if id == nil, let text = String.fromDatabaseValue(key) {
                if text.hasPrefix("outcome/") {
                    outcome = try Self.outboxOutcome(db, key: text, versions: &versions)
                } else if let uuid = TaskVersionOutboxSchema.version(ofKey: text) {
                    taskVersion = try Self.outboxTaskVersion(db, uuid: uuid, versions: &versions)
                }
            }
            entries.append(
                OutboxEntry(
                    sequence: row["sequence"],
                    sample: try id.flatMap { id in try SampleTable.row(db, id: id, reader: &reader)?.stored },
                    sampleID: id,
                    enqueuedAt: Date(timeIntervalSince1970: enqueuedAt),
                    outcome: outcome,
                    taskVersion: taskVersion
                )
            )
        }
        return entries
    }

    /// The task version an entry's key (`task/<version uuid>`) names, with its patient and name; nil when it is
    /// gone. `versions` is loaded on first use.
    static func outboxTaskVersion(
        _ db: Database,
        uuid: String,
        versions: inout [String: TaskVersion]?
    ) throws -> StoredTask? {
        if versions == nil {
            versions = Dictionary(
                try TaskVersions.load(db).all.map { ($0.record.uuid, $0) },
                uniquingKeysWith: { first, _ in first }
            )
        }
        return versions?[uuid]?.storedTask
    }

    /// The state of the outcome an entry's key (`outcome/<task version uuid>/<occurrence>`) names: recorded (as
    /// the store holds it now), undone (the newest undo record of the event) or removed; nil when the task version
    /// is gone. `versions` is loaded on first use.
    static func outboxOutcome(
        _ db: Database,
        key: String,
        versions: inout [String: TaskVersion]?
    ) throws -> OutboxOutcome? {
        let parts = key.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, let occurrence = Int(parts[2]) else { return nil }
        let taskUUID = String(parts[1])
        guard
            let task = try Row.fetchOne(
                db,
                sql: """
                    SELECT x.taskID, \(Self.patientColumn("x"))
                    FROM (SELECT id AS taskID FROM task WHERE uuid = ?) AS x
                    """,
                arguments: [taskUUID]
            )
        else { return nil }
        var state = OutboxOutcome(
            taskID: task["taskID"],
            taskUUID: taskUUID,
            occurrence: occurrence,
            patientID: task["patientID"],
            state: .removed
        )
        if let row = try Row.fetchOne(
            db,
            sql: "SELECT eventStart, eventEnd FROM outcome WHERE taskUUID = ? AND occurrence = ?",
            arguments: [taskUUID, occurrence]
        ) {
            if versions == nil {
                versions = Dictionary(
                    try TaskVersions.load(db).all.map { ($0.record.uuid, $0) },
                    uniquingKeysWith: { first, _ in first }
                )
            }
            let start = Date(timeIntervalSince1970: row["eventStart"])
            let event = ScheduledEvent(
                occurrence: occurrence,
                elementIndex: 0,
                start: start,
                end: Date(timeIntervalSince1970: row["eventEnd"]),
                isAllDay: false
            )
            if let version = versions?[taskUUID],
                let recorded = try Self.events(db, version: version, scheduled: [event], zone: .gmt).first?.outcome
            {
                state.state = .recorded
                state.eventStart = start
                state.outcome = try OutcomeUndo.json(recorded)
                return state
            }
        }
        if let undo = try Row.fetchOne(
            db,
            sql: """
                SELECT eventStart, undoneAt, author, outcome FROM outcomeUndo
                WHERE taskUUID = ? AND occurrence = ? ORDER BY undoneAt DESC, id DESC LIMIT 1
                """,
            arguments: [taskUUID, occurrence]
        ) {
            state.state = .undone
            state.eventStart = Date(timeIntervalSince1970: undo["eventStart"])
            state.undoneAt = Date(timeIntervalSince1970: undo["undoneAt"])
            state.undoneBy = undo["author"]
            state.outcome = undo["outcome"]
        }
        return state
    }

    /// Removes delivered entries (after the broker acknowledged them).
    public func removeOutboxEntries(
        _ sequences: [Int64],
        channel: String = CareStore.mqttOutboxChannel
    )
        async throws(CareStoreError)
    {
        guard !sequences.isEmpty else { return }
        try await write { db in
            try db.execute(
                sql: """
                    DELETE FROM outboxEntry WHERE channel = ? AND sequence IN (\
                    \(databaseQuestionMarks(count: sequences.count)))
                    """,
                arguments: StatementArguments([channel]) + StatementArguments(sequences)
            )
        }
    }

    /// How many entries of `channel` are pending.
    public func outboxCount(channel: String = CareStore.mqttOutboxChannel) async throws(CareStoreError) -> Int {
        try await read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outboxEntry WHERE channel = ?", arguments: [channel]) ?? 0
        }
    }

    /// What `channel` holds: count, oldest entry, and per device and quantity type.
    public func outboxSummary(
        channel: String = CareStore.mqttOutboxChannel
    ) async throws(CareStoreError)
        -> OutboxSummary
    {
        let (enabled, entries) = try await read { db in
            let enabled =
                try Bool.fetchOne(
                    db,
                    sql: "SELECT EXISTS (SELECT 1 FROM outboxChannel WHERE name = ?)",
                    arguments: [channel]
                ) ?? false
            return (enabled, try Self.pendingOutbox(db, channel: channel, limit: Int.max))
        }
        var groups: [OutboxSummary.Group] = []
        var index: [String: Int] = [:]
        for entry in entries {
            guard let sample = entry.sample?.sample else { continue }
            let deviceKey = sample.source.device?.key
            let key = "\(deviceKey ?? "")\u{0}\(sample.type.rawValue)"
            if let position = index[key] {
                groups[position].count += 1
                groups[position].oldestEnqueuedAt = min(groups[position].oldestEnqueuedAt, entry.enqueuedAt)
                groups[position].oldestSampleStart = min(groups[position].oldestSampleStart, sample.start)
            } else {
                index[key] = groups.count
                groups.append(
                    OutboxSummary.Group(
                        deviceKey: deviceKey,
                        type: sample.type,
                        count: 1,
                        oldestEnqueuedAt: entry.enqueuedAt,
                        oldestSampleStart: sample.start
                    )
                )
            }
        }
        return OutboxSummary(
            channel: channel,
            isEnabled: enabled,
            count: entries.count,
            oldestEnqueuedAt: entries.map(\.enqueuedAt).min(),
            groups: groups
        )
    }
}
