import GRDB

/// Migration `"v21-hub-changes"`: what came down from the hub (plan versions, alert acknowledgements, quarantine
/// decisions), one row per change the bridge has dealt with, keyed by the hub's own sequence.
///
/// The highest sequence is the bridge's cursor: the next sync asks the hub for what came after it, so a change is
/// dealt with once and in the hub's order. `outcome` is `applied` or `refused` (with the bridge's `reason`);
/// `reported` turns 1 once the hub has confirmed the batch that told it, so every outcome reaches the hub.
enum HubChangeSchema {
    static let migrationName = "v21-hub-changes"

    /// Appends the migration. Append-only: never edit it once released.
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration(migrationName) { db in
            try db.execute(
                sql: """
                    CREATE TABLE hubChange (
                        sequence INTEGER PRIMARY KEY NOT NULL,
                        kind TEXT NOT NULL,
                        outcome TEXT NOT NULL CHECK (outcome IN ('applied', 'refused')),
                        reason TEXT,
                        handledAt REAL NOT NULL,
                        reported INTEGER NOT NULL DEFAULT 0
                    );
                    """
            )
        }
    }
}
