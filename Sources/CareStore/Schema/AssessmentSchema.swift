import GRDB

/// Migration `"v4-answers-and-notes"`: assessments people answer, notes and "not done".
///
/// - `task.answer`: the task's ``CarePlan/AnswerFormat`` as JSON (NULL for tasks without one);
///   `task.alerts`: its alert rules as JSON (NULL for none).
/// - `outcome.note`: a note on the outcome (CareKit's `OCKNote`, one per outcome);
///   `outcome.notDoneReason`: set when the event was marked not done (the outcome then has no values).
/// - `outcomeValue.text`: the words of an answer (`yes`, a choice, free text, a scale label).
///
/// Columns are only added, so rows written before keep their meaning (NULL = no answer format, no rules, no
/// note, done, no text).
enum AssessmentSchema {
    static let migrationName = "v4-answers-and-notes"

    /// Appends the migration. Append-only: never edit it once released.
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration(migrationName) { db in
            try db.execute(
                sql: """
                    ALTER TABLE task ADD COLUMN answer TEXT;
                    ALTER TABLE task ADD COLUMN alerts TEXT;
                    ALTER TABLE outcome ADD COLUMN note TEXT;
                    ALTER TABLE outcome ADD COLUMN notDoneReason TEXT;
                    ALTER TABLE outcomeValue ADD COLUMN text TEXT;
                    """
            )
        }
    }
}
