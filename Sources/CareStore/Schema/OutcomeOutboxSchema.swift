import GRDB

/// Migration `"v19-outcome-outbox"`: outcomes are queued for the hub's outbox channel (`hub`) like samples, by
/// triggers on `outcome`, in the transaction that writes them, whichever code path writes them.
///
/// An outcome changes (a linked reading adds a value, someone completes, edits or undoes it), so its entry is
/// keyed by the event, not by a version: `outcome/<task version uuid>/<occurrence>` in `outboxEntry.sampleID`
/// (text, which no sample id is). Each write removes the pending entry and queues a new one at the end, so the
/// hub's channel reads the outcome's state when it sends it and a write made while a batch is on the way is sent
/// again after it (never lost by the removal of the entry the batch confirmed). A deleted outcome (an undo: the
/// store keeps its undo record) is queued the same way and goes up as an undo.
///
/// Only the `hub` channel takes outcomes: a broker gets samples. A store whose hub channel was enabled before
/// this migration queues every outcome it holds now, oldest write first.
enum OutcomeOutboxSchema {
    static let migrationName = "v19-outcome-outbox"

    /// The outbox channel that takes outcomes (``CareStore/hubOutboxChannel``).
    static let channel = "hub"

    /// The entry key of an outcome row (`row` is `NEW` or `OLD`).
    static func key(_ row: String) -> String { "'outcome/' || \(row).taskUUID || '/' || \(row).occurrence" }

    /// Appends the migration. Append-only: never edit it once released.
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration(migrationName) { db in
            var sql = ""
            for (name, event, row, time) in [
                ("Insert", "INSERT", "NEW", "NEW.updatedDate"), ("Update", "UPDATE", "NEW", "NEW.updatedDate"),
                ("Delete", "DELETE", "OLD", "(julianday('now') - 2440587.5) * 86400.0"),
            ] {
                sql += """
                    CREATE TRIGGER outboxEntry_onOutcome\(name) AFTER \(event) ON outcome
                    WHEN EXISTS (SELECT 1 FROM outboxChannel WHERE name = '\(channel)')
                    BEGIN
                        DELETE FROM outboxEntry WHERE channel = '\(channel)' AND sampleID = \(key(row));
                        INSERT INTO outboxEntry (channel, sampleID, enqueuedAt) VALUES ('\(channel)', \(key(row)), \(time));
                    END;

                    """
            }
            try db.execute(sql: sql)
            try queueStored(db)
        }
    }

    /// Queues every outcome the store holds for the hub channel, oldest write first, when the channel is enabled
    /// (entries already pending stay where they are).
    static func queueStored(_ db: Database) throws {
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO outboxEntry (channel, sampleID, enqueuedAt)
                SELECT '\(channel)', \(key("outcome")), outcome.updatedDate FROM outcome
                WHERE EXISTS (SELECT 1 FROM outboxChannel WHERE name = '\(channel)')
                ORDER BY outcome.updatedDate, outcome.id
                """
        )
    }
}
