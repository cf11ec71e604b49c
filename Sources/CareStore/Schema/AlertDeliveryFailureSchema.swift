import GRDB

/// Migration `"v17-alert-delivery-failures"`: notifications a receiver refused for good (an e-mail recipient the
/// relay answered 5xx), kept after their outbox entry is removed, so what did not reach a person stays visible
/// (`carebridge alerts deliver` lists them) instead of being retried forever or dropped silently.
enum AlertDeliveryFailureSchema {
    static let migrationName = "v17-alert-delivery-failures"

    /// Appends the migration. Append-only: never edit it once released.
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration(migrationName) { db in
            try db.execute(
                sql: """
                    CREATE TABLE alertDeliveryFailure (
                        id INTEGER PRIMARY KEY,
                        channel TEXT NOT NULL,
                        alertID INTEGER NOT NULL REFERENCES alert(id),
                        change TEXT NOT NULL,
                        -- The contact the notification was for (NULL: not one contact).
                        contactID TEXT,
                        -- Where it was sent (an e-mail address).
                        recipient TEXT NOT NULL,
                        error TEXT NOT NULL,
                        failedAt DOUBLE NOT NULL
                    );
                    """
            )
        }
    }
}
