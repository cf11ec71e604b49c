import BridgeCore
public import Foundation
import GRDB
import Logging

extension CareStore {
    /// The outbox channel MQTT publishing uses.
    public static let mqttOutboxChannel = "mqtt"

    /// Starts queueing every newly stored sample for `channel`. From now on each insert into the store also
    /// adds an outbox entry in the same transaction (also when stored by a process without a publisher), until
    /// ``disableOutbox(channel:)``. Enabling again keeps what is pending.
    /// - Throws: ``CareStoreError`` `.database`.
    public func enableOutbox(
        channel: String = CareStore.mqttOutboxChannel,
        at date: Date = Date()
    )
        throws(CareStoreError)
    {
        try write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO outboxChannel (name, enabledAt) VALUES (?, ?)",
                arguments: [channel, date.timeIntervalSince1970]
            )
        }
    }

    /// Stops queueing samples for `channel` and drops what is pending.
    /// - Returns: how many pending entries were dropped.
    @discardableResult
    public func disableOutbox(channel: String = CareStore.mqttOutboxChannel) throws(CareStoreError) -> Int {
        try write { db in
            try db.execute(sql: "DELETE FROM outboxChannel WHERE name = ?", arguments: [channel])
            try db.execute(sql: "DELETE FROM outboxEntry WHERE channel = ?", arguments: [channel])
            return db.changesCount
        }
    }

    /// Drops every pending entry of `channel` (they will not be delivered); queueing stays as it was.
    /// - Returns: how many entries were dropped.
    @discardableResult
    public func clearOutbox(channel: String = CareStore.mqttOutboxChannel) throws(CareStoreError) -> Int {
        try write { db in
            try db.execute(sql: "DELETE FROM outboxEntry WHERE channel = ?", arguments: [channel])
            return db.changesCount
        }
    }

    /// The oldest pending entries of `channel`, in delivery order, with their samples.
    /// - Parameter limit: at most this many entries.
    public func pendingOutbox(
        channel: String = CareStore.mqttOutboxChannel,
        limit: Int
    ) throws(CareStoreError)
        -> [OutboxEntry]
    {
        let (rows, records) = try read { db -> ([Row], [String: SampleRecord]) in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT sequence, sampleID, enqueuedAt FROM outboxEntry
                    WHERE channel = ? ORDER BY sequence LIMIT ?
                    """,
                arguments: [channel, limit]
            )
            let ids = rows.map { $0["sampleID"] as String }
            let records = try SampleRecord.filter(ids.contains(Column("id"))).fetchAll(db)
            return (rows, Dictionary(records.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first }))
        }
        var entries: [OutboxEntry] = []
        entries.reserveCapacity(rows.count)
        for row in rows {
            let id: String = row["sampleID"]
            let enqueuedAt: Double = row["enqueuedAt"]
            entries.append(
                OutboxEntry(
                    sequence: row["sequence"],
                    sample: try records[id]?.storedSample(),
                    sampleID: UUID(uuidString: id),
                    enqueuedAt: Date(timeIntervalSince1970: enqueuedAt)
                )
            )
        }
        return entries
    }

    /// Removes delivered entries (after the broker acknowledged them).
    public func removeOutboxEntries(
        _ sequences: [Int64],
        channel: String = CareStore.mqttOutboxChannel
    )
        throws(CareStoreError)
    {
        guard !sequences.isEmpty else { return }
        try write { db in
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
    public func outboxCount(channel: String = CareStore.mqttOutboxChannel) throws(CareStoreError) -> Int {
        try read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outboxEntry WHERE channel = ?", arguments: [channel]) ?? 0
        }
    }

    /// What `channel` holds: count, oldest entry, and per device and quantity type.
    public func outboxSummary(
        channel: String = CareStore.mqttOutboxChannel
    ) throws(CareStoreError)
        -> OutboxSummary
    {
        try read { db in
            let enabled =
                try Bool.fetchOne(
                    db,
                    sql: "SELECT EXISTS (SELECT 1 FROM outboxChannel WHERE name = ?)",
                    arguments: [channel]
                ) ?? false
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT sample.deviceKey AS deviceKey, sample.type AS type, COUNT(*) AS count,
                        MIN(outboxEntry.enqueuedAt) AS oldestEnqueuedAt, MIN(sample.start) AS oldestStart,
                        MIN(outboxEntry.sequence) AS firstSequence
                    FROM outboxEntry JOIN sample ON sample.id = outboxEntry.sampleID
                    WHERE outboxEntry.channel = ?
                    GROUP BY sample.deviceKey, sample.type
                    ORDER BY firstSequence
                    """,
                arguments: [channel]
            )
            var groups: [OutboxSummary.Group] = []
            for row in rows {
                let typeName: String = row["type"]
                guard let type = QuantityType(rawValue: typeName) else {
                    throw CareStoreError(.corruptRow, "outbox: sample of unknown type '\(typeName)'")
                }
                groups.append(
                    OutboxSummary.Group(
                        deviceKey: row["deviceKey"],
                        type: type,
                        count: row["count"],
                        oldestEnqueuedAt: Date(timeIntervalSince1970: row["oldestEnqueuedAt"]),
                        oldestSampleStart: Date(timeIntervalSince1970: row["oldestStart"])
                    )
                )
            }
            let count =
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outboxEntry WHERE channel = ?", arguments: [channel])
                ?? 0
            let oldest = try Double.fetchOne(
                db,
                sql: "SELECT MIN(enqueuedAt) FROM outboxEntry WHERE channel = ?",
                arguments: [channel]
            )
            return OutboxSummary(
                channel: channel,
                isEnabled: enabled,
                count: count,
                oldestEnqueuedAt: oldest.map { Date(timeIntervalSince1970: $0) },
                groups: groups
            )
        }
    }
}
