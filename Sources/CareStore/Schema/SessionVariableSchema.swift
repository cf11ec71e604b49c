import GRDB

/// Migration `"v7-session-variables"`: the variables a device profile's session keeps between connections,
/// per device — a glucose meter's download cursor (`lastSequence`), a multi-user scale's user index and consent
/// code (`carebridge devices consent`).
///
/// One row per device address, profile and variable name; a value is a whole number or bytes. Stores written
/// before have no such rows: every device starts as on first contact (a full download, which the sample
/// idempotency key makes harmless).
enum SessionVariableSchema {
    static let migrationName = "v7-session-variables"

    /// Appends the migration. Append-only: never edit it once released.
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration(migrationName) { db in
            try db.execute(
                sql: """
                    CREATE TABLE deviceSessionVariable (
                        device TEXT NOT NULL,
                        profile TEXT NOT NULL,
                        name TEXT NOT NULL,
                        integerValue INTEGER,
                        bytesValue BLOB,
                        updatedAt REAL NOT NULL,
                        PRIMARY KEY (device, profile, name),
                        CHECK ((integerValue IS NULL) <> (bytesValue IS NULL))
                    ) WITHOUT ROWID;
                    """
            )
        }
    }
}
