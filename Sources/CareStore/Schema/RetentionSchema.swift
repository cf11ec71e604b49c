import GRDB

/// Migration `v11-sample-aggregates`: the stored retention policy and the aggregates that replace raw samples
/// past their horizon (``CareStore/applyRetention(now:batchSeconds:progress:)``).
enum RetentionSchema {
    static let migrationName = "v11-sample-aggregates"

    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration(migrationName) { db in
            try db.execute(
                sql: """
                    -- One row per type with a policy (set by `plan apply` from the plan file's "retention").
                    CREATE TABLE retentionRule (
                        type TEXT PRIMARY KEY NOT NULL,
                        keepRawDays INTEGER NOT NULL,
                        aggregateMinutes INTEGER NOT NULL,
                        setAt DOUBLE NOT NULL
                    );

                    -- Work a vacuum left to do (`payloadSweepPending`: payloads of deleted samples to remove).
                    CREATE TABLE retentionState (
                        key TEXT PRIMARY KEY NOT NULL,
                        value
                    );

                    -- The samples of one bucket (type, unit, source kind, device, patient, bucket start) that a
                    -- vacuum replaced: exact count, sum, min, max, first and last with the times of each. Times
                    -- are integer milliseconds since 1970. A late sample for a bucket already aggregated is merged
                    -- into its row by the next vacuum.
                    CREATE TABLE sampleAggregate (
                        id INTEGER PRIMARY KEY,
                        type TEXT NOT NULL,
                        unit TEXT NOT NULL,
                        bucketStart INTEGER NOT NULL,
                        bucketEnd INTEGER NOT NULL,
                        sourceKind TEXT NOT NULL,
                        deviceID INTEGER REFERENCES device(id),
                        patientID TEXT,
                        count INTEGER NOT NULL,
                        sum DOUBLE NOT NULL,
                        min DOUBLE NOT NULL,
                        minAt INTEGER NOT NULL,
                        max DOUBLE NOT NULL,
                        maxAt INTEGER NOT NULL,
                        first DOUBLE NOT NULL,
                        firstAt INTEGER NOT NULL,
                        last DOUBLE NOT NULL,
                        lastAt INTEGER NOT NULL,
                        createdAt DOUBLE NOT NULL,
                        updatedAt DOUBLE NOT NULL
                    );
                    CREATE UNIQUE INDEX sampleAggregate_on_key ON sampleAggregate(
                        type, bucketStart, unit, sourceKind, ifnull(deviceID, -1), ifnull(patientID, '')
                    );
                    """
            )
        }
    }
}
