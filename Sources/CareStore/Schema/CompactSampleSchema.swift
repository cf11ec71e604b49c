import BridgeCore
import Foundation
import GRDB
import Logging

/// Migration `"v10-compact-samples"`: the samples move from table `sample` (one row of 26 columns per sample,
/// with text repeated in every row, the notification's payload copied into each of its samples, and two
/// indexes) to the compact layout of ``SampleTable`` (codes, whole milliseconds, the payload once per
/// notification, the id stored once as the table's key with its start). Every field is carried over: ids
/// exactly as stored (also an id that is not its key's), values, units, payloads, metadata, times (rounded to
/// whole milliseconds), tombstones, quarantine and release reasons, routes. Outcome values and outbox entries
/// name samples by their 16-byte id, which does not change, so they stay as they are.
///
/// **Resumable.** A GRDB migration is one transaction: converting a large store in it would hold every converted
/// page in the WAL until the end, and an interruption would throw all the work away. So ``CareStore`` first
/// converts in chunks of ``chunkSize`` samples, each its own transaction (``convertInChunks(_:logger:total:)``),
/// noting the last converted rowid of the old table in `sampleConversion`; the old table stays untouched and
/// authoritative until the migration itself converts what is left (nothing, or what was added since) and drops
/// it, in one transaction. An interruption leaves the old layout complete and a partial copy: the next open
/// continues after the last committed chunk. Not supported: an older CareBridge writing the store while a newer
/// one converts it (a change to an already converted sample would not be carried over).
enum CompactSampleSchema {
    static let migrationName = "v10-compact-samples"
    /// Samples per transaction while converting.
    static let chunkSize = 50_000

    /// Appends the migration. Append-only: never edit it once released.
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration(migrationName) { db in
            while try convert(db, limit: chunkSize) > 0 {}
            try db.execute(
                sql: """
                    DROP TABLE sample;
                    DROP TABLE sampleConversion;
                    """
            )
        }
    }

    /// Converts up to `limit` samples of the old table after the last converted one, in the caller's
    /// transaction, creating the new tables first if needed.
    /// - Returns: how many were converted (0: none left).
    static func convert(_ db: Database, limit: Int) throws -> Int {
        try db.execute(sql: SampleTable.createSQL)
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS sampleConversion (
                    id INTEGER PRIMARY KEY CHECK (id = 0),
                    lastRowid INTEGER NOT NULL
                )
                """
        )
        let last = try Int64.fetchOne(db, sql: "SELECT lastRowid FROM sampleConversion WHERE id = 0") ?? 0
        let records = try Row.fetchCursor(
            db,
            sql: """
                SELECT \(SampleRecord.selection), sample.rowid \(SampleRecord.from)
                WHERE sample.rowid > ? ORDER BY sample.rowid LIMIT ?
                """,
            arguments: [last, limit]
        )
        let inserter = try SampleInserter(db: db, enqueueOutbox: false)
        var cache = SampleRecord.DecodingCache()
        var converted = 0
        var lastRowid = last
        while let row = try records.next() {
            let record = try SampleRecord(row: row)
            let stored = try record.storedSample(cache: &cache)
            if let text = record.metadata, stored.sample.metadata.isEmpty,
                text.trimmingCharacters(in: .whitespaces) != "{}"
            {
                throw CareStoreError(
                    .corruptRow,
                    "sample \(record.id.uuidString.lowercased()): metadata \(text) cannot be read; "
                        + "not converting the store rather than dropping it"
                )
            }
            try inserter.copy(stored)
            lastRowid = row[26]
            converted += 1
        }
        if converted > 0 {
            try db.execute(
                sql: "INSERT OR REPLACE INTO sampleConversion (id, lastRowid) VALUES (0, ?)",
                arguments: [lastRowid]
            )
        }
        return converted
    }

    /// Samples of the old layout waiting to be converted, or nil when the store needs no conversion (new, or
    /// already converted).
    static func pendingSamples(_ db: Database) throws -> Int? {
        let applied = try Schema.migrator.appliedIdentifiers(db)
        guard applied.contains("v1"), !applied.contains(migrationName), try db.tableExists("sample") else {
            return nil
        }
        let last =
            try db.tableExists("sampleConversion")
            ? (try Int64.fetchOne(db, sql: "SELECT lastRowid FROM sampleConversion WHERE id = 0") ?? 0) : 0
        return try Int.fetchOne(db, sql: "SELECT count(*) FROM sample WHERE rowid > ?", arguments: [last]) ?? 0
    }

    /// Converts the old layout chunk by chunk, each chunk committed on its own (resumable), logging progress;
    /// the migration then only drops the old table. Runs once every earlier migration is applied.
    static func convertInChunks(_ writer: any DatabaseWriter, logger: Logger, total: Int) throws {
        var done = 0
        while true {
            let converted = try writer.write { db in try convert(db, limit: chunkSize) }
            guard converted > 0 else { break }
            done += converted
            logger.notice("converted \(done) of \(total) samples to the compact layout")
        }
    }
}
