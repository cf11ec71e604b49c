import BridgeCore
public import Foundation
import GRDB
import Logging

extension CareStore {
    /// The outbox channel MQTT publishing uses.
    public static let mqttOutboxChannel = "mqtt"

    /// Starts queueing every newly stored sample for `channel`. From now on each insert into the store also
    /// adds an outbox entry in the same transaction (written by the sample inserter, which every path that
    /// stores a sample goes through) (also when stored by a process without a publisher), until
    /// ``disableOutbox(channel:)``. Enabling again keeps what is pending.
    ///
    /// - Parameter includingStored: when the channel is enabled now (not already), also queue every sample the
    ///   store holds, oldest stored first (a hub wants a bridge's history; a broker only what is new).
    /// - Throws: ``CareStoreError`` `.database`.
    public func enableOutbox(
        channel: String = CareStore.mqttOutboxChannel,
        at date: Date = Date(),
        includingStored: Bool = false
    )
        async throws(CareStoreError)
    {
        try await write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO outboxChannel (name, enabledAt) VALUES (?, ?)",
                arguments: [channel, date.timeIntervalSince1970]
            )
            guard includingStored, db.changesCount == 1 else { return }
            // Every live sample, in the order it was stored (then measured): the channel's history.
            var reader = try SampleRowReader(db)
            let stored = try reader.samples(
                db,
                where: """
                    r.type IN (SELECT code FROM quantityType) \
                    AND (r.state IS NULL OR r.state & \(SampleTable.deletedBit) = 0)
                    """,
                arguments: []
            ).sorted { ($0.recordedAt, $0.sample.start) < ($1.recordedAt, $1.sample.start) }
            let insert = try db.makeStatement(
                sql: "INSERT OR IGNORE INTO outboxEntry (channel, sampleID, enqueuedAt) VALUES (?, ?, ?)"
            )
            for sample in stored {
                try insert.execute(arguments: [channel, sample.id.data, sample.recordedAt.timeIntervalSince1970])
            }
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
        var entries: [OutboxEntry] = []
        entries.reserveCapacity(rows.count)
        for row in rows {
            let id = OutboxSchema.sampleUUID(row["sampleID"])
            let enqueuedAt: Double = row["enqueuedAt"]
            entries.append(
                OutboxEntry(
                    sequence: row["sequence"],
                    sample: try id.flatMap { id in try SampleTable.row(db, id: id, reader: &reader)?.stored },
                    sampleID: id,
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
    ) throws(CareStoreError)
        -> OutboxSummary
    {
        let (enabled, entries) = try read { db in
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
