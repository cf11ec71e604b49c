import GRDB

/// Migration `"v13-sample-review"`: who released, deleted or filed a reading, when and why (the review list).
///
/// Appended to by ``CareStore/releaseSample(id:reason:at:by:)``, ``CareStore/deleteSample(id:at:reason:by:)``
/// and ``CareStore/assignSample(id:to:at:by:)`` in the transaction that changes the sample; never edited. A
/// release keeps its reason on the sample as before; the review adds who (nil: the CLI) and a deletion's reason.
enum SampleReviewSchema {
    static let migrationName = "v13-sample-review"

    /// Appends the migration. Append-only: never edit it once released.
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration(migrationName) { db in
            try db.execute(
                sql: """
                    CREATE TABLE sampleReview (
                        id INTEGER PRIMARY KEY,
                        sampleID BLOB NOT NULL,
                        action TEXT NOT NULL,
                        reason TEXT,
                        author TEXT,
                        reviewedAt DOUBLE NOT NULL
                    );
                    CREATE INDEX sampleReview_on_sampleID ON sampleReview(sampleID);
                    """
            )
        }
    }
}
