import BridgeCore
import Foundation
import GRDB

/// Migration `"v3-time-ordered-sample-ids"`: every stored sample id becomes the time-ordered id of
/// ``BridgeCore/SampleID`` (the key's time, then SHA-256 bits), everywhere it is referenced.
///
/// Before, an id was the name-based UUID of the SHA-256 of the idempotency key: random, so every ingest
/// transaction rewrote pages all over the unique id index. Ids are rebuilt from the stored columns (the same
/// rebuild ``CareStore/sample(id:)`` does), so a reading replayed after the migration finds its row and adds
/// nothing. The old id is kept for a row whose columns do not rebuild to it (not expected; re-importing that
/// reading was not idempotent before either). Rewritten references: `sample.id` (tombstones too),
/// `outcomeValue.sampleID` (lowercase text) and `outboxEntry.sampleID` (16 bytes, or text in the same form).
///
/// The same migration makes `sample.deviceID`'s foreign key deferred (see below), which needs the table rebuilt;
/// the outbox trigger of `"v2-outbox"` is recreated unchanged on the rebuilt table if an outbox channel is
/// enabled, and from now on exists only while one is (``OutboxSchema/createTriggerSQL``).
enum SampleIDSchema {
    static let migrationName = "v3-time-ordered-sample-ids"

    /// Appends the migration. Append-only: never edit it once released.
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration(migrationName) { db in
            try db.execute(
                sql: """
                    CREATE TEMP TABLE sampleIDChange (
                        old BLOB PRIMARY KEY NOT NULL,
                        new BLOB NOT NULL,
                        oldText TEXT NOT NULL UNIQUE,
                        newText TEXT NOT NULL
                    ) WITHOUT ROWID
                    """
            )
            let insert = try db.makeStatement(
                sql: "INSERT INTO sampleIDChange (old, new, oldText, newText) VALUES (?, ?, ?, ?)"
            )
            let records = try SampleRecord.fetchCursor(
                db,
                sql: "SELECT \(SampleRecord.baseSelection) \(SampleRecord.from)"
            )
            var cache = SampleRecord.DecodingCache()
            while let record = try records.next() {
                guard let sample = try? record.storedSample(cache: &cache).sample, sample.legacyID == record.id
                else { continue }
                let new = sample.idFromKey()
                guard new != record.id else { continue }
                insert.setUncheckedArguments([
                    record.id.data, new.data, record.id.uuidString.lowercased(), new.uuidString.lowercased(),
                ])
                try insert.execute()
            }
            // The sample table is rebuilt (same columns, same order, same rowids) rather than updated in place: the
            // device reference becomes DEFERRABLE INITIALLY DEFERRED. An immediate foreign key makes every insert
            // that fires a trigger (the outbox trigger) open a statement journal, which copied each page the
            // insert touched and cost a quarter of the ingest time; a deferred one is still checked, at commit.
            try db.execute(
                sql: """
                    CREATE TABLE sampleRebuilt (
                        id BLOB NOT NULL UNIQUE,
                        type TEXT NOT NULL,
                        value DOUBLE NOT NULL,
                        unit TEXT NOT NULL,
                        start DOUBLE NOT NULL,
                        "end" DOUBLE NOT NULL,
                        transmittedValue DOUBLE NOT NULL,
                        transmittedUnit TEXT NOT NULL,
                        sourceKind TEXT NOT NULL,
                        characteristic TEXT,
                        decoder TEXT,
                        deviceID INTEGER REFERENCES device(id) DEFERRABLE INITIALLY DEFERRED,
                        deviceTime TEXT,
                        receivedAt DOUBLE NOT NULL,
                        clockOffset DOUBLE,
                        payload BLOB NOT NULL,
                        sampleIndex INTEGER NOT NULL,
                        metadata TEXT,
                        recordedAt DOUBLE NOT NULL,
                        deletedDate DOUBLE
                    );
                    INSERT INTO sampleRebuilt (
                        rowid, id, type, value, unit, start, "end", transmittedValue, transmittedUnit, sourceKind,
                        characteristic, decoder, deviceID, deviceTime, receivedAt, clockOffset, payload, sampleIndex,
                        metadata, recordedAt, deletedDate
                    )
                    SELECT
                        sample.rowid, coalesce(change.new, sample.id), type, value, unit, start, "end",
                        transmittedValue, transmittedUnit, sourceKind, characteristic, decoder, deviceID, deviceTime,
                        receivedAt, clockOffset, payload, sampleIndex, metadata, recordedAt, deletedDate
                    FROM sample LEFT JOIN sampleIDChange AS change ON change.old = sample.id
                    ORDER BY sample.rowid;
                    DROP TABLE sample;
                    ALTER TABLE sampleRebuilt RENAME TO sample;
                    CREATE INDEX sample_on_type_start ON sample(type, start);

                    UPDATE outcomeValue SET sampleID = change.newText FROM sampleIDChange AS change
                        WHERE outcomeValue.sampleID = change.oldText;
                    UPDATE outboxEntry SET sampleID = change.new FROM sampleIDChange AS change
                        WHERE outboxEntry.sampleID = change.old;
                    UPDATE outboxEntry SET sampleID = change.newText FROM sampleIDChange AS change
                        WHERE outboxEntry.sampleID = change.oldText;
                    DROP TABLE sampleIDChange;
                    """
            )
            // The outbox trigger went with the old table; it comes back only if a channel is enabled.
            try OutboxSchema.updateTrigger(db)
        }
    }
}
