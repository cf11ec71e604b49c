import BridgeCore
import Foundation
import GRDB

/// Migration `"v20-outbox-channel-types"`: an outbox channel may take only some sample types
/// (`outboxChannel.sampleTypes`: the types' identifiers between spaces, ` bloodGlucose `; NULL: every type), so
/// a receiver that takes glucose only (Nightscout) is not sent every other reading to drop.
///
/// Every path that queues a sample (the inserter, a release from quarantine, an inbox assignment, a retraction)
/// goes through ``enqueueSQL``, so the filter is applied in the transaction that stores the sample whichever path
/// stores it. The history a channel is given when first enabled goes through ``enqueueStored(_:channel:types:where:)``
/// with the channel's types.
enum OutboxChannelTypesSchema {
    static let migrationName = "v20-outbox-channel-types"

    /// Queues one sample for every enabled channel that takes its type. Arguments: the sample's id (16 bytes), the
    /// time it is queued at (seconds since 1970) and its type's identifier.
    static let enqueueSQL = """
        INSERT OR IGNORE INTO outboxEntry (channel, sampleID, enqueuedAt)
        SELECT name, ?, ? FROM outboxChannel
        WHERE sampleTypes IS NULL OR instr(sampleTypes, ' ' || ? || ' ') > 0
        """

    /// Queues `id` (of `type`) for every enabled channel that takes `type`.
    static func enqueue(_ db: Database, id: UUID, type: QuantityType, at date: Date) throws {
        try db.execute(sql: enqueueSQL, arguments: [id.data, date.timeIntervalSince1970, type.rawValue])
    }

    /// Queues for `channel` every live sample the store holds that `condition` selects (over `r`, the row) and
    /// whose type `types` contains (nil: every type), in the order they were stored: by recording time, then
    /// start, then type code and id tail (the table's key, the order the rows are read in, so samples stored at
    /// the same moment with the same start keep it). Each entry's `enqueuedAt` is the sample's recording time, as
    /// when the inserter queues it; a sample already queued for `channel` keeps its entry.
    ///
    /// One `INSERT … SELECT`: the samples are never decoded or held in memory (SQLite sorts the rows, spilling to
    /// temporary files beyond the page cache), so a bridge's months of heart rate cost no more memory than a day.
    /// Deleted samples (tombstones) are left out; quarantined and inbox samples are queued (the hub keeps
    /// quarantined readings apart for the care team).
    /// - Throws: ``CareStoreError`` `.corruptRow` when a live sample that `condition` selects has a type this release
    ///   does not know (it could not be sent); a `DatabaseError` when SQLite fails, also for a row whose detail is
    ///   not a JSON object (``SampleTable/idFunction``).
    static func enqueueStored(
        _ db: Database,
        channel: String,
        types: Set<QuantityType>?,
        where condition: String = "1"
    ) throws {
        let live = "(r.state IS NULL OR r.state & \(SampleTable.deletedBit) = 0) AND (\(condition))"
        var codes: [Int64] = []
        for row in try Row.fetchAll(db, sql: "SELECT code, name FROM quantityType ORDER BY code") {
            let code: Int64 = row[0]
            let name: String = row[1]
            guard let type = QuantityType(rawValue: name) else {
                let held = try Bool.fetchOne(
                    db,
                    sql: "SELECT EXISTS (SELECT 1 FROM sampleRow AS r WHERE r.type = ? AND \(live))",
                    arguments: [code]
                )
                if held ?? false {
                    throw CareStoreError(
                        .corruptRow,
                        "stored samples of type '\(name)', which this release does not know"
                    )
                }
                continue
            }
            if types?.contains(type) ?? true { codes.append(code) }
        }
        guard !codes.isEmpty else { return }
        db.add(function: SampleTable.idFunction)
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO outboxEntry (channel, sampleID, enqueuedAt)
                SELECT ?, \(SampleTable.idFunction.name)(start, idTail, detail), recordedAt / 1000.0 FROM (
                    SELECT r.type AS type, r.start AS start, r.idTail AS idTail, r.detail AS detail,
                    coalesce((
                        SELECT b.recordedAt FROM sampleBatch AS b WHERE b.firstOrigin <= r.origin
                        ORDER BY b.firstOrigin DESC LIMIT 1
                    ), 0) AS recordedAt
                    FROM \(SampleTable.from)
                    WHERE r.type IN (\(codes.map(String.init).joined(separator: ","))) AND \(live)
                )
                ORDER BY recordedAt, start, type, idTail
                """,
            arguments: [channel]
        )
    }

    /// The column's value for a set of types: nil (every type) or the identifiers between spaces, sorted.
    static func column(_ types: Set<QuantityType>?) -> String? {
        types.map { " " + $0.map(\.rawValue).sorted().joined(separator: " ") + " " }
    }

    /// Appends the migration. Append-only: never edit it once released.
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration(migrationName) { db in
            try db.execute(sql: "ALTER TABLE outboxChannel ADD COLUMN sampleTypes TEXT")
        }
    }
}
