import GRDB

/// Migration `"v24-task-version-outbox"`: task versions go up to the hub (as `taskVersion`), so it can tell which
/// events were due on a patient's day and which were missed, with the bridge's own rules. A trigger on `task` queues
/// every version (a plan applied from the hub or locally, `tasks add/update/delete`, a deletion's tombstone) in the
/// transaction that writes it, as `task/<version uuid>` in `outboxEntry.sampleID` (text, which no sample id is).
/// Versions are never changed once written, so each is queued once; the hub keeps each id once.
///
/// Only the `hub` channel takes them. A store whose hub channel was enabled before this migration queues every
/// version it holds now, oldest first.
enum TaskVersionOutboxSchema {
    static let migrationName = "v24-task-version-outbox"

    /// The entry key of a task row (`row` is `NEW` or `task`).
    static func key(_ row: String) -> String { "'task/' || \(row).uuid" }

    /// The version uuid an entry key names, or nil for another kind of entry.
    static func version(ofKey key: String) -> String? {
        key.hasPrefix("task/") ? String(key.dropFirst(5)) : nil
    }

    /// Appends the migration. Append-only: never edit it once released.
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration(migrationName) { db in
            let channel = OutcomeOutboxSchema.channel
            try db.execute(
                sql: """
                    CREATE TRIGGER outboxEntry_onTaskInsert AFTER INSERT ON task
                    WHEN EXISTS (SELECT 1 FROM outboxChannel WHERE name = '\(channel)')
                    BEGIN
                        INSERT OR IGNORE INTO outboxEntry (channel, sampleID, enqueuedAt)
                        VALUES ('\(channel)', \(key("NEW")), NEW.createdDate);
                    END;
                    """
            )
            try queueStored(db)
        }
    }

    /// Queues every task version the store holds for the hub channel, oldest first, when the channel is enabled
    /// (entries already pending stay where they are).
    static func queueStored(_ db: Database) throws {
        let channel = OutcomeOutboxSchema.channel
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO outboxEntry (channel, sampleID, enqueuedAt)
                SELECT '\(channel)', \(key("task")), task.createdDate FROM task
                WHERE EXISTS (SELECT 1 FROM outboxChannel WHERE name = '\(channel)')
                ORDER BY task.createdDate, task.id, task.versionNumber
                """
        )
    }
}
