import Foundation
import GRDB

/// Every statement of retention and store statistics that reads or deletes rows of the `sample` table, in one
/// place: the sample layout changes (`v10-compact-samples`) touch only this file.
///
/// A raw sample is a retention **candidate** when it is live (not a tombstone), usable (not quarantined), filed
/// (not in the unassigned inbox), an exact value (no LO/HI comparator), from a device (manual readings are kept
/// as they are) and not waiting in the MQTT outbox.
enum SampleRetentionSQL {
    /// The tables (and their indexes) that hold raw samples, for the size statistics.
    static let sampleTables = ["sample"]

    /// The candidate filter; arguments: type, from (seconds, inclusive), to (seconds, exclusive).
    private static let candidates = """
        sample.type = ? AND sample.start >= ? AND sample.start < ? AND sample.deletedDate IS NULL
        AND sample.quarantineReason IS NULL AND sample.inboxReason IS NULL AND sample.comparator IS NULL
        AND sample.sourceKind <> 'manual' AND sample.id NOT IN (SELECT sampleID FROM outboxEntry)
        """

    /// One candidate row, as aggregation needs it.
    struct Row {
        var start: Double
        var value: Double
        var unit: String
        var sourceKind: String
        var deviceID: Int64?
        var patientID: String?
    }

    /// The measurement time of the earliest candidate of `type` in `[from, to)`, nil when there is none.
    static func firstCandidate(_ db: Database, type: String, from: Double, to: Double) throws -> Double? {
        try Double.fetchOne(
            db,
            sql: "SELECT min(sample.start) FROM sample WHERE \(candidates)",
            arguments: [type, from, to]
        )
    }

    /// The candidates of `type` in `[from, to)`, in (start, id) order.
    static func readCandidates(
        _ db: Database,
        type: String,
        from: Double,
        to: Double,
        _ body: (Row) throws -> Void
    )
        throws
    {
        let rows = try GRDB.Row.fetchCursor(
            db,
            sql: """
                SELECT sample.start, sample.value, sample.unit, sample.sourceKind, sample.deviceID, sample.patientID
                FROM sample WHERE \(candidates) ORDER BY sample.start, sample.id
                """,
            arguments: [type, from, to]
        )
        while let row = try rows.next() {
            try body(
                Row(start: row[0], value: row[1], unit: row[2], sourceKind: row[3], deviceID: row[4], patientID: row[5])
            )
        }
    }

    /// Deletes exactly the rows ``readCandidates(_:type:from:to:_:)`` read (same transaction, same filter).
    /// - Returns: how many rows were deleted.
    static func deleteCandidates(_ db: Database, type: String, from: Double, to: Double) throws -> Int {
        try db.execute(sql: "DELETE FROM sample WHERE \(candidates)", arguments: [type, from, to])
        return db.changesCount
    }

    /// How many candidates of `type` lie before `to`, and in how many buckets of `bucketMilliseconds` (per
    /// unit, source kind, device and patient) they fall.
    static func countCandidates(
        _ db: Database,
        type: String,
        before to: Double,
        bucketMilliseconds: Int64
    ) throws
        -> (samples: Int, buckets: Int)
    {
        let row = try GRDB.Row.fetchOne(
            db,
            sql: """
                SELECT coalesce(sum(n), 0), count(*) FROM (
                    SELECT count(*) AS n FROM sample WHERE \(candidates)
                    GROUP BY CAST(round(sample.start * 1000) AS INTEGER) / ?, sample.unit, sample.sourceKind,
                        sample.deviceID, sample.patientID
                )
                """,
            arguments: [type, -Double.greatestFiniteMagnitude, to, bucketMilliseconds]
        )
        return (row?[0] ?? 0, row?[1] ?? 0)
    }

    /// Per type: live samples, tombstones, quarantined samples, and the bytes of their payloads and metadata.
    static func countsByType(
        _ db: Database
    ) throws -> [(
        type: String, live: Int, deleted: Int, quarantined: Int, payloadBytes: Int, oldest: Double?, newest: Double?
    )] {
        try GRDB.Row.fetchAll(
            db,
            sql: """
                SELECT type, sum(deletedDate IS NULL), sum(deletedDate IS NOT NULL),
                    sum(deletedDate IS NULL AND quarantineReason IS NOT NULL), sum(length(payload)),
                    min(start), max(start)
                FROM sample GROUP BY type ORDER BY type
                """
        ).map { row in (row[0], row[1], row[2], row[3], row[4] ?? 0, row[5], row[6]) }
    }

    /// Whether a device sample of `type` measured at `start` from `device` (JSON identity) and `sourceKind` falls
    /// in a bucket a vacuum already aggregated (a re-import of a vacuumed period).
    static func isAggregated(
        _ db: Database,
        type: String,
        start: Double,
        sourceKind: String,
        deviceIdentity: String?
    ) throws -> Bool {
        let milliseconds = Int64((start * 1000).rounded())
        return try Bool.fetchOne(
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
