import GRDB

/// The store's schema as named, append-only migrations. Never edit a migration once released; add `"v2"`.
/// (`v1` was last changed before the first release: binary sample ids, device table, binary payload.)
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

                    -- Each distinct device identity once; samples point at it.
                    CREATE TABLE device (
                        id INTEGER PRIMARY KEY,
                        identity TEXT NOT NULL UNIQUE
                    );

                    -- `id` is the sample's UUID (16 bytes), itself the name-based UUID of the SHA-256 of the
                    -- idempotency key: its uniqueness is the idempotency guarantee (one small random index instead
                    -- of two text ones). The key itself is not stored: it is rebuilt from the columns.
                    CREATE TABLE sample (
                        id BLOB NOT NULL UNIQUE,
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
                        deviceID INTEGER REFERENCES device(id),
                        deviceTime TEXT,
                        receivedAt DOUBLE NOT NULL,
                        clockOffset DOUBLE,
                        payload BLOB NOT NULL,
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
                        -- `mean`/`sum` outcomes: the running sum and count of their samples, so samples arriving
                        -- in order update the value without re-reading the event window.
                        valueSum DOUBLE,
                        valueCount INTEGER,
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
        SampleIDSchema.register(in: &migrator)
        AssessmentSchema.register(in: &migrator)
        AlertSchema.register(in: &migrator)
        SampleSafetySchema.register(in: &migrator)
        SessionVariableSchema.register(in: &migrator)
        PeopleSchema.register(in: &migrator)
        OutcomeSampleIDSchema.register(in: &migrator)
        CompactSampleSchema.register(in: &migrator)
        RetentionSchema.register(in: &migrator)
        UserSchema.register(in: &migrator)
        SampleReviewSchema.register(in: &migrator)
        OutcomeUndoSchema.register(in: &migrator)
        DeviceBatterySchema.register(in: &migrator)
        SeriesIndexSchema.register(in: &migrator)
        AlertDeliveryFailureSchema.register(in: &migrator)
        UserTimeZoneSchema.register(in: &migrator)
        OutcomeOutboxSchema.register(in: &migrator)
        OutboxChannelTypesSchema.register(in: &migrator)
        HubChangeSchema.register(in: &migrator)
        TaskNameSchema.register(in: &migrator)
        HubQuarantineSchema.register(in: &migrator)
        TaskVersionOutboxSchema.register(in: &migrator)
        return migrator
    }
}
