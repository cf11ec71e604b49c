import GRDB

/// The store's schema as named, append-only migrations. Never edit a migration once released; add `"v2"`.
enum Schema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            // One row per task *version*. `id` is the developer id, stable across versions; `uuid` names the
            // version. A version with `deletedDate` is a tombstone. Rows are never updated.
            try db.execute(
                sql: """
                    CREATE TABLE task (
                        uuid TEXT PRIMARY KEY NOT NULL,
                        id TEXT NOT NULL,
                        versionNumber INTEGER NOT NULL,
                        previousVersionUUID TEXT REFERENCES task(uuid),
                        title TEXT NOT NULL,
                        instructions TEXT,
                        kind TEXT NOT NULL,
                        groupIdentifier TEXT,
                        tags TEXT NOT NULL,
                        impactsAdherence BOOLEAN NOT NULL,
                        schedule TEXT NOT NULL,
                        linkageType TEXT,
                        linkageUnit TEXT,
                        linkageAggregation TEXT,
                        effectiveDate DOUBLE NOT NULL,
                        createdDate DOUBLE NOT NULL,
                        deletedDate DOUBLE,
                        UNIQUE (id, versionNumber)
                    );
                    CREATE INDEX task_on_linkageType ON task(linkageType) WHERE linkageType IS NOT NULL;

                    CREATE TABLE sample (
                        id TEXT NOT NULL UNIQUE,
                        idempotencyKey TEXT NOT NULL UNIQUE,
                        type TEXT NOT NULL,
                        value DOUBLE NOT NULL,
                        unit TEXT NOT NULL,
                        start DOUBLE NOT NULL,
                        "end" DOUBLE NOT NULL,
                        transmittedValue DOUBLE NOT NULL,
                        transmittedUnit TEXT NOT NULL,
                        sourceKind TEXT NOT NULL,
                        characteristic TEXT,
                        decoder TEXT,
                        deviceKey TEXT,
                        device TEXT,
                        deviceTime TEXT,
                        receivedAt DOUBLE NOT NULL,
                        clockOffset DOUBLE,
                        payload TEXT NOT NULL,
                        sampleIndex INTEGER NOT NULL,
                        metadata TEXT,
                        recordedAt DOUBLE NOT NULL,
                        deletedDate DOUBLE
                    );
                    CREATE INDEX sample_on_type_start ON sample(type, start);

                    CREATE TABLE outcome (
                        id INTEGER PRIMARY KEY,
                        taskUUID TEXT NOT NULL REFERENCES task(uuid),
                        taskID TEXT NOT NULL,
                        occurrence INTEGER NOT NULL,
                        eventStart DOUBLE NOT NULL,
                        eventEnd DOUBLE NOT NULL,
                        createdDate DOUBLE NOT NULL,
                        updatedDate DOUBLE NOT NULL,
                        UNIQUE (taskUUID, occurrence)
                    );
                    CREATE INDEX outcome_on_taskID_eventStart ON outcome(taskID, eventStart);

                    CREATE TABLE outcomeValue (
                        outcomeID INTEGER NOT NULL REFERENCES outcome(id) ON DELETE CASCADE,
                        position INTEGER NOT NULL,
                        value DOUBLE NOT NULL,
                        unit TEXT NOT NULL,
                        measuredAt DOUBLE NOT NULL,
                        sampleID TEXT,
                        recordedAt DOUBLE NOT NULL,
                        PRIMARY KEY (outcomeID, position)
                    ) WITHOUT ROWID;
                    """
            )
        }
        OutboxSchema.register(in: &migrator)
        return migrator
    }
}
