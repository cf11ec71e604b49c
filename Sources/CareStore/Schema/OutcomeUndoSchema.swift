import GRDB

/// Migration `"v14-outcome-undo"`: what an undo removed, who undid it and when.
///
/// Appended to by ``CareStore/uncomplete(taskID:occurrence:at:author:now:)`` in the transaction that removes the
/// outcome; never edited. `outcome` holds the removed outcome as JSON (its values with units and times, note,
/// reason, author and creation time), so an undo never loses what was recorded; `author` is the care app user (nil:
/// the command line).
enum OutcomeUndoSchema {
    static let migrationName = "v14-outcome-undo"

    /// Appends the migration. Append-only: never edit it once released.
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration(migrationName) { db in
            try db.execute(
                sql: """
                    CREATE TABLE outcomeUndo (
                        id INTEGER PRIMARY KEY,
                        taskUUID TEXT NOT NULL,
                        taskID TEXT NOT NULL,
                        occurrence INTEGER NOT NULL,
                        eventStart DOUBLE NOT NULL,
                        undoneAt DOUBLE NOT NULL,
                        author TEXT,
                        outcome TEXT NOT NULL
                    );
                    CREATE INDEX outcomeUndo_on_taskID_eventStart ON outcomeUndo(taskID, eventStart);
                    """
            )
        }
    }
}
