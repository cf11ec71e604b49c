import GRDB

/// Migration `"v16-series-indexes"`: the two lookups by sample series that scanned a table.
///
/// - `sampleSeries_on_deviceID`: storing a reading finds its series by device (``SampleInserter``); without it
///   each new device's first reading scanned every series, so a store that had heard from n devices spent n²
///   (3k / 10k / 30k devices: 2.2 / 15.8 / 123 s).
/// - `sampleRow_on_series`: a device's newest reading for a patient (``CareStore/devices(of:since:)``, the care
///   app's Devices page) is the last entry of `(series, route)` before now; without it each device read its
///   types' rows backwards to `since` (a strap's 90 days of another patient's heart rate: seconds per strap).
///   It costs each stored sample one more B-tree entry of about 25 bytes, appended where its series' entries
///   end (series and route repeat from one reading to the next, start grows).
enum SeriesIndexSchema {
    static let migrationName = "v16-series-indexes"

    /// Appends the migration. Append-only: never edit it once released.
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration(migrationName) { db in
            try db.execute(
                sql: """
                    CREATE INDEX sampleSeries_on_deviceID ON sampleSeries(deviceID);
                    CREATE INDEX sampleRow_on_series ON sampleRow(series, route, start);
                    """
            )
        }
    }
}
