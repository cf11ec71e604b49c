import Foundation
import GRDB

/// The outbox tables: samples waiting to be published (MQTT), enqueued by the database itself.
///
/// A trigger on `sample` adds one `outboxEntry` per enabled `outboxChannel` whenever a sample row is inserted, so
/// the entry is written in the very transaction that stores the sample, whichever code path stores it. A
/// duplicate sample (`INSERT OR IGNORE` skips the row) fires no trigger, so storing the same sample twice
/// enqueues it once.
///
/// The trigger reads only `sample.id` and `sample.recordedAt`, and the outbox reads samples back through
/// ``CareStore/sample(id:)``, so the outbox does not depend on how the sample table lays out the rest.
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
