import GRDB

/// Migration `"v15-device-battery"`: each device's newest battery level (Battery Level, 0x2A19), by device key.
///
/// Written by ``CareStore/recordBatteries(_:)``: a level read earlier than the one kept never replaces it, so a
/// replay of an old recording cannot make a battery look fuller than it is now.
enum DeviceBatterySchema {
    static let migrationName = "v15-device-battery"

    /// Appends the migration. Append-only: never edit it once released.
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration(migrationName) { db in
            try db.execute(
                sql: """
                    CREATE TABLE deviceBattery (
                        deviceKey TEXT PRIMARY KEY NOT NULL,
                        level INTEGER NOT NULL,
                        readAt DOUBLE NOT NULL
                    );
                    """
            )
        }
    }
}
