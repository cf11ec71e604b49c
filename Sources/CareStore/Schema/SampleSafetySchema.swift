import GRDB

/// Migration `"v6-sample-safety"`: what the safety stage decides travels with the stored sample.
///
/// - `sample.comparator`: `<` / `>` for a LO/HI result (beyond the device's measurement range), NULL otherwise.
///   Its `value` is the device's limit, or ±∞ when the limit is unknown (SQLite stores ±∞ as REAL).
/// - `sample.quarantineReason`: why the sample is quarantined (implausible, invalid by its device status);
///   NULL for a usable sample. A quarantined sample completes no event and is neither published nor exported.
/// - `sample.releaseReason`: why a person released a quarantined sample (`carebridge samples release`).
/// - `outcomeValue.comparator`: an outcome value taken from a LO/HI sample keeps its comparator.
///
/// Existing rows get NULLs: every sample stored before was used as a plain number, and stays so.
enum SampleSafetySchema {
    static let migrationName = "v6-sample-safety"

    /// Appends the migration. Append-only: never edit it once released.
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration(migrationName) { db in
            try db.execute(
                sql: """
                    ALTER TABLE sample ADD COLUMN comparator TEXT;
                    ALTER TABLE sample ADD COLUMN quarantineReason TEXT;
                    ALTER TABLE sample ADD COLUMN releaseReason TEXT;
                    ALTER TABLE outcomeValue ADD COLUMN comparator TEXT;
                    CREATE INDEX sample_quarantined ON sample(start) WHERE quarantineReason IS NOT NULL;
                    """
            )
        }
    }
}
