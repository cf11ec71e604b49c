import BridgeCore
import Foundation
import GRDB

/// Every statement of retention and store statistics that reads or deletes sample rows (the compact layout of
/// ``SampleTable``, `"v10-compact-samples"`), in one place.
///
/// A raw sample is a retention **candidate** when it is live and usable (`state` NULL: not a tombstone, not
/// quarantined, not in the unassigned inbox), an exact value (its series has no LO/HI comparator), from a
/// device (manual readings are kept as they are) and not waiting in the MQTT outbox.
enum SampleRetentionSQL {
    /// The tables (and their indexes) that hold raw samples, for the size statistics.
    static let sampleTables = [
        "sampleRow", "sampleOrigin", "sampleSeries", "sampleMetadata", "sampleBatch", "sampleRoute", "quantityType",
    ]

    /// The candidate filter over `r` (a `sampleRow`); arguments: type code, from (ms, inclusive), to (ms,
    /// exclusive).
    private static let candidates = """
        r.type = ? AND r.start >= ? AND r.start < ? AND r.state IS NULL
        AND r.series IN (SELECT id FROM sampleSeries WHERE comparator IS NULL AND sourceKind <> 'manual')
        """

    /// One candidate, as aggregation needs it.
    struct Row {
        var start: Int64
        var value: Double
        var unit: String
        var sourceKind: String
        var deviceID: Int64?
        var patientID: String?
        var key: SampleTable.RowKey
    }

    /// The code of `type` in this store, nil when no sample of it was ever stored.
    static func typeCode(_ db: Database, _ type: String) throws -> Int64? {
        try SampleTable.typeCodes(db, [type]).first
    }

    /// The measurement time of the earliest candidate in `[from, to)` (ms), nil when there is none.
    static func firstCandidate(_ db: Database, type: Int64, from: Int64, to: Int64) throws -> Int64? {
        try Int64.fetchOne(
            db,
            sql: "SELECT min(r.start) FROM sampleRow AS r WHERE \(candidates)",
            arguments: [type, from, to]
        )
    }

    /// The ids of samples waiting in the outbox (kept raw until published).
    static func pendingOutbox(_ db: Database) throws -> Set<Data> {
        Set(try Data.fetchAll(db, sql: "SELECT sampleID FROM outboxEntry WHERE typeof(sampleID) = 'blob'"))
    }

    /// The candidates in `[from, to)` (ms), in (start, id) order.
    static func readCandidates(
        _ db: Database,
        type: Int64,
        from: Int64,
        to: Int64,
        pending: Set<Data>,
        _ body: (Row) throws -> Void
    ) throws {
        var reader = try SampleRowReader(db)
        var devices: [Int64: Int64?] = [:]
        for row in try GRDB.Row.fetchAll(db, sql: "SELECT id, deviceID FROM sampleSeries") {
            devices[row[0]] = row[1] as Int64?
        }
        try reader.forEachRow(db, where: candidates, arguments: [type, from, to], suffix: "ORDER BY r.start, r.idTail")
        {
            row in
            if !pending.isEmpty, pending.contains(row.id.data) { return }
            let sample = row.stored.sample
            try body(
                Row(
                    start: row.key.start,
                    value: sample.value,
                    unit: sample.unit.rawValue,
                    sourceKind: sample.source.kind.rawValue,
                    deviceID: devices[row.series] ?? nil,
                    patientID: row.stored.patientID,
                    key: row.key
                )
            )
        }
    }

    /// Deletes the rows aggregated (by their keys, in the caller's transaction).
    /// - Returns: how many rows were deleted.
    static func delete(_ db: Database, keys: [SampleTable.RowKey]) throws -> Int {
        let statement = try db.cachedStatement(sql: "DELETE FROM sampleRow WHERE type = ? AND start = ? AND idTail = ?")
        var deleted = 0
        for key in keys {
            statement.setUncheckedArguments([key.type, key.start, key.tail])
            try statement.execute()
            deleted += db.changesCount
        }
        return deleted
    }

    /// Deletes the payloads (`sampleOrigin`) no sample row refers to any more: one scan of every sample row, in
    /// one transaction.
    /// - Returns: how many were deleted.
    static func deleteUnreferencedPayloads(_ db: Database) throws -> Int {
        try db.execute(sql: "DELETE FROM sampleOrigin WHERE id NOT IN (SELECT origin FROM sampleRow)")
        return db.changesCount
    }

    /// How many candidates of `type` lie before `to` (ms), and in how many buckets of `bucketMilliseconds` (per
    /// unit, source kind, device and patient) they fall. Samples waiting in the outbox are subtracted from the
    /// count (not from the buckets).
    static func countCandidates(
        _ db: Database,
        type: String,
        before to: Int64,
        bucketMilliseconds: Int64
    ) throws
        -> (samples: Int, buckets: Int)
    {
        guard let code = try typeCode(db, type) else { return (0, 0) }
        let row = try GRDB.Row.fetchOne(
            db,
            sql: """
                SELECT coalesce(sum(n), 0), count(*) FROM (
                    SELECT count(*) AS n FROM sampleRow AS r
                    JOIN sampleSeries AS s ON s.id = r.series JOIN sampleRoute AS rt ON rt.id = r.route
                    WHERE \(candidates)
                    GROUP BY (r.start - ((r.start % ?) + ?) % ?), s.unit, s.sourceKind, s.deviceID, rt.patientID
                )
                """,
            arguments: [code, Int64.min, to, bucketMilliseconds, bucketMilliseconds, bucketMilliseconds]
        )
        var samples: Int = row?[0] ?? 0
        let pending = try pendingOutbox(db)
        if !pending.isEmpty {
            var reader = try SampleRowReader(db)
            for id in pending {
                guard let uuid = UUID(bytes: id), let row = try SampleTable.row(db, id: uuid, reader: &reader),
                    row.key.type == code, row.key.start < to, row.state == 0,
                    row.stored.sample.comparator == nil, row.stored.sample.source.kind != .manual
                else { continue }
                samples -= 1
            }
        }
        return (samples, row?[1] ?? 0)
    }

    /// Per type: live samples, tombstones, quarantined samples, oldest and newest measurement time (ms).
    static func countsByType(
        _ db: Database
    ) throws -> [(
        type: String, live: Int, deleted: Int, quarantined: Int, oldest: Int64?, newest: Int64?
    )] {
        try GRDB.Row.fetchAll(
            db,
            sql: """
                SELECT q.name, sum(coalesce(r.state, 0) & \(SampleTable.deletedBit) = 0),
                    sum(coalesce(r.state, 0) & \(SampleTable.deletedBit) <> 0),
                    sum(coalesce(r.state, 0) & \(SampleTable.deletedBit) = 0
                        AND coalesce(r.state, 0) & \(SampleTable.quarantinedBit) <> 0),
                    min(r.start), max(r.start)
                FROM sampleRow AS r JOIN quantityType AS q ON q.code = r.type GROUP BY r.type ORDER BY q.name
                """
        ).map { row in (row[0], row[1], row[2], row[3], row[4], row[5]) }
    }

    /// Whether a device sample of `type` measured at `start` (ms) from `device` (JSON identity) and `sourceKind`
    /// falls in a bucket a vacuum already aggregated (a re-import of a vacuumed period).
    static func isAggregated(
        _ db: Database,
        type: String,
        start milliseconds: Int64,
        sourceKind: String,
        deviceIdentity: String?
    ) throws -> Bool {
        try Bool.fetchOne(
            db,
            sql: """
                SELECT EXISTS (SELECT 1 FROM sampleAggregate WHERE type = ? AND bucketStart <= ? AND bucketEnd > ?
                    AND bucketStart > ? - 86400000 AND sourceKind = ?
                    AND deviceID IS (SELECT id FROM device WHERE identity = ?))
                """,
            arguments: [type, milliseconds, milliseconds, milliseconds, sourceKind, deviceIdentity]
        ) ?? false
    }
}
