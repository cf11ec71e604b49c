import GRDB

/// The outbox tables: samples waiting to be published (MQTT), enqueued by the database itself.
///
/// A trigger on `sample` adds one `outboxEntry` per enabled `outboxChannel` whenever a sample row is inserted, so
/// the entry is written in the very transaction that stores the sample, whichever code path stores it. A
/// duplicate sample (`INSERT OR IGNORE` skips the row) fires no trigger, so storing the same sample twice
/// enqueues it once.
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
                        sampleID TEXT NOT NULL,
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
}
