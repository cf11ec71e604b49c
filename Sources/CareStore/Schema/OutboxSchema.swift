import Foundation
import GRDB

/// The outbox tables: samples waiting to be published (MQTT), enqueued by the database itself.
///
/// A trigger on `sample` adds one `outboxEntry` per enabled `outboxChannel` whenever a sample row is inserted, so
/// the entry is written in the very transaction that stores the sample, whichever code path stores it. (The
/// trigger exists only while a channel is enabled: ``createTriggerSQL``.) A
/// duplicate sample (`INSERT OR IGNORE` skips the row) fires no trigger, so storing the same sample twice
/// enqueues it once.
///
/// The trigger reads only `sample.id` and `sample.recordedAt`, and the outbox reads samples back through
/// ``CareStore/sample(id:)``, so the outbox does not depend on how the sample table lays out the rest.
///
/// Since `"v10-compact-samples"` there is no trigger: the compact table does not hold the id as one column, so
/// the sample inserter (every path that stores a sample goes through it) adds the entries itself, in the same
/// transaction, for every enabled channel. ``updateTrigger(_:)`` remains for the migrations before it.
enum OutboxSchema {
    /// Appends the outbox migration (`"v2-outbox"`). Append-only: never edit it once released.
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v2-outbox") { db in
            try db.execute(
                sql: """
                    CREATE TABLE outboxChannel (
                        name TEXT PRIMARY KEY NOT NULL,
                        enabledAt DOUBLE NOT NULL
                    );

                    CREATE TABLE outboxEntry (
                        sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                        channel TEXT NOT NULL,
                        sampleID NOT NULL, -- the sample's id exactly as the sample table holds it
                        enqueuedAt DOUBLE NOT NULL,
                        UNIQUE (channel, sampleID)
                    );

                    CREATE TRIGGER outboxEntry_onSampleInsert AFTER INSERT ON sample
                    BEGIN
                        INSERT OR IGNORE INTO outboxEntry (channel, sampleID, enqueuedAt)
                        SELECT name, NEW.id, NEW.recordedAt FROM outboxChannel;
                    END;
                    """
            )
        }
    }

    /// The trigger that enqueues new samples, exactly as `"v2-outbox"` created it.
    ///
    /// Since `"v3-time-ordered-sample-ids"` it exists only while at least one channel is enabled:
    /// ``CareStore/enableOutbox(channel:at:)`` creates it in the transaction that adds the channel and
    /// ``CareStore/disableOutbox(channel:)`` drops it with the last channel. With no channel it enqueued nothing
    /// anyway, but a trigger on `sample` costs every insert (it runs a sub-program per row): about a tenth of
    /// the bulk-ingest time.
    static let createTriggerSQL = """
        CREATE TRIGGER IF NOT EXISTS outboxEntry_onSampleInsert AFTER INSERT ON sample
        BEGIN
            INSERT OR IGNORE INTO outboxEntry (channel, sampleID, enqueuedAt)
            SELECT name, NEW.id, NEW.recordedAt FROM outboxChannel;
        END
        """

    /// Creates the trigger when a channel is enabled and drops it when none is (see ``createTriggerSQL``).
    static func updateTrigger(_ db: Database) throws {
        if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM outboxChannel)") ?? false {
            try db.execute(sql: createTriggerSQL)
        } else {
            try db.execute(sql: "DROP TRIGGER IF EXISTS outboxEntry_onSampleInsert")
        }
    }

    /// A sample id as the trigger copied it: UUID text or 16 bytes.
    static func sampleUUID(_ value: DatabaseValue) -> UUID? {
        switch value.storage {
        case .string(let text): return UUID(uuidString: text)
        case .blob(let data) where data.count == 16:
            let b = [UInt8](data)
            return UUID(
                uuid: (
                    b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]
                )
            )
        default: return nil
        }
    }
}
