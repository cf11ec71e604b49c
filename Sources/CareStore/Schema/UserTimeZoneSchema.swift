import GRDB

/// Migration `"v18-user-time-zone"`: each care app user's time zone (an IANA name), in which the app shows them
/// every time. NULL: the bridge's zone, as before this migration, so existing users see nothing change.
enum UserTimeZoneSchema {
    static let migrationName = "v18-user-time-zone"

    /// Appends the migration. Append-only: never edit it once released.
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration(migrationName) { db in
            try db.execute(sql: "ALTER TABLE appUser ADD COLUMN timeZone TEXT")
        }
    }
}
