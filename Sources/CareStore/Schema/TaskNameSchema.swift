import GRDB

/// Migration `"v22-task-names"`: a task's id is unique per patient, not in the whole store.
///
/// `task.id` stays the store-wide **key** every other table (outcomes, alerts, undo, outbox, hub changes) and every
/// outward id (topics, Home Assistant, FHIR) points at; `task.name` is the id the plan file gave the task, unique
/// among one patient's tasks. Every existing row gets `name = id`, so no key, outcome or outward id changes. A
/// later task whose name another patient already uses gets the key `NAME@PATIENT` (see `docs/ward-plans.md`).
enum TaskNameSchema {
    static let migrationName = "v22-task-names"

    /// Appends the migration. Append-only: never edit it once released.
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration(migrationName) { db in
            try db.execute(
                sql: """
                    ALTER TABLE task ADD COLUMN name TEXT;
                    UPDATE task SET name = id;
                    CREATE INDEX task_on_name ON task(name);
                    """
            )
        }
    }
}
