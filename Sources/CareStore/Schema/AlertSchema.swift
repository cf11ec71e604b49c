import GRDB

/// Migration `"v5-alerts"`: alerts raised by the plan's rules, and their delivery queue.
///
/// `alert` holds one row per (rule, subject): the subject is what the alert is about (an event, a reading, a
/// day), so a rule trips once per subject however often it is evaluated. A row records what tripped it
/// (`evidence`: JSON of the events and samples), the task version that carried the rule, when it was raised,
/// acknowledged and withdrawn (when a late reading or a correction removed the facts).
///
/// `alertDelivery` is the durable outbox of alert notifications per channel (`mqtt`, `webhook`): an entry is
/// written in the transaction that raises, withdraws or acknowledges the alert, and removed only after the
/// receiver confirmed it (PUBACK, HTTP 2xx). `attempts`/`nextAttemptAt`/`lastError` drive retries.
enum AlertSchema {
    static let migrationName = "v5-alerts"

    /// Appends the migration. Append-only: never edit it once released.
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration(migrationName) { db in
            try db.execute(
                sql: """
                    CREATE TABLE alert (
                        id INTEGER PRIMARY KEY,
                        taskID TEXT NOT NULL,
                        ruleID TEXT NOT NULL,
                        taskUUID TEXT NOT NULL REFERENCES task(uuid),
                        taskVersion INTEGER NOT NULL,
                        subject TEXT NOT NULL,
                        severity TEXT NOT NULL,
                        message TEXT NOT NULL,
                        value DOUBLE,
                        unit TEXT,
                        occurredAt DOUBLE NOT NULL,
                        day TEXT NOT NULL,
                        evidence TEXT NOT NULL,
                        raisedAt DOUBLE NOT NULL,
                        updatedAt DOUBLE NOT NULL,
                        acknowledgedAt DOUBLE,
                        acknowledgedBy TEXT,
                        withdrawnAt DOUBLE,
                        withdrawnReason TEXT,
                        UNIQUE (taskID, ruleID, subject)
                    );
                    CREATE INDEX alert_on_occurredAt ON alert(occurredAt);

                    CREATE TABLE alertChannel (
                        name TEXT PRIMARY KEY NOT NULL,
                        enabledAt DOUBLE NOT NULL
                    );

                    CREATE TABLE alertDelivery (
                        sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                        channel TEXT NOT NULL,
                        alertID INTEGER NOT NULL REFERENCES alert(id),
                        change TEXT NOT NULL,
                        enqueuedAt DOUBLE NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        nextAttemptAt DOUBLE NOT NULL,
                        lastError TEXT
                    );
                    CREATE INDEX alertDelivery_on_channel ON alertDelivery(channel, sequence);
                    """
            )
        }
    }
}
