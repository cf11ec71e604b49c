public import Foundation
import GRDB

extension CareStore {
    /// The hub's sequence of the last change this bridge dealt with (0: none yet): the next sync asks for what
    /// came after it.
    /// - Throws: ``CareStoreError`` `.database`.
    public func hubChangeCursor() async throws(CareStoreError) -> Int64 {
        try await read { db in try Int64.fetchOne(db, sql: "SELECT max(sequence) FROM hubChange") ?? 0 }
    }

    /// Records that a change from the hub was applied or refused, so it is not dealt with again and its outcome
    /// goes up with the next batch. Recording the same sequence again changes nothing.
    /// - Throws: ``CareStoreError`` `.database`.
    public func recordHubChange(_ change: HandledHubChange, at date: Date = Date()) async throws(CareStoreError) {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO hubChange (sequence, kind, outcome, reason, handledAt)
                    VALUES (?, ?, ?, ?, ?)
                    """,
                arguments: [
                    change.sequence, change.kind, change.refusal == nil ? "applied" : "refused", change.refusal,
                    date.timeIntervalSince1970,
                ]
            )
        }
    }

    /// The handled changes whose outcome the hub has not confirmed yet, oldest first.
    /// - Throws: ``CareStoreError`` `.database`.
    public func unreportedHubChanges(limit: Int) async throws(CareStoreError) -> [HandledHubChange] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT sequence, kind, reason FROM hubChange WHERE reported = 0 ORDER BY sequence LIMIT ?",
                arguments: [limit]
            ).map { HandledHubChange(sequence: $0["sequence"], kind: $0["kind"], refusal: $0["reason"]) }
        }
    }

    /// Marks outcomes as confirmed by the hub.
    /// - Throws: ``CareStoreError`` `.database`.
    public func markHubChangesReported(_ sequences: [Int64]) async throws(CareStoreError) {
        guard !sequences.isEmpty else { return }
        try await write { db in
            try db.execute(
                sql:
                    "UPDATE hubChange SET reported = 1 WHERE sequence IN (\(databaseQuestionMarks(count: sequences.count)))",
                arguments: StatementArguments(sequences)
            )
        }
    }
}
