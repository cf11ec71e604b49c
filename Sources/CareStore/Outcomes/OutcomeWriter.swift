import BridgeCore
import CarePlan
import Foundation
import GRDB

/// The prepared statements that write outcomes and their ordered values.
struct OutcomeWriter {
    struct StoredValue {
        var position: Int
        var value: Double
        var measuredAt: Date
        var sampleID: SampleKey
        var recordedAt: Date
        var comparator: ValueComparator?
    }

    let db: Database
    private let findOutcome: Statement
    private let upsertOutcome: Statement
    private let deleteOutcome: Statement
    private let deleteValues: Statement
    private let insertValue: Statement
    private let lastValueStatement: Statement
    private let touchOutcome: Statement
    private let runningStatement: Statement

    init(db: Database) throws {
        self.db = db
        findOutcome = try db.cachedStatement(sql: "SELECT id FROM outcome WHERE taskUUID = ? AND occurrence = ?")
        upsertOutcome = try db.cachedStatement(
            sql: """
                INSERT INTO outcome (
                    taskUUID, taskID, occurrence, eventStart, eventEnd, createdDate, updatedDate, valueSum, valueCount
                )
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (taskUUID, occurrence) DO UPDATE SET
                    updatedDate = excluded.updatedDate, valueSum = excluded.valueSum, valueCount = excluded.valueCount
                RETURNING id
                """
        )
        deleteOutcome = try db.cachedStatement(sql: "DELETE FROM outcome WHERE taskUUID = ? AND occurrence = ?")
        deleteValues = try db.cachedStatement(sql: "DELETE FROM outcomeValue WHERE outcomeID = ?")
        insertValue = try db.cachedStatement(
            sql: """
                INSERT INTO outcomeValue (outcomeID, position, value, unit, measuredAt, sampleID, recordedAt, comparator)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """
        )
        lastValueStatement = try db.cachedStatement(
            sql: """
                SELECT position, value, measuredAt, sampleID, recordedAt, comparator FROM outcomeValue
                WHERE outcomeID = ? ORDER BY position DESC LIMIT 1
                """
        )
        touchOutcome = try db.cachedStatement(sql: "UPDATE outcome SET updatedDate = ? WHERE id = ?")
        runningStatement = try db.cachedStatement(
            sql: """
                SELECT o.valueSum, o.valueCount, v.measuredAt, v.recordedAt
                FROM outcome o JOIN outcomeValue v ON v.outcomeID = o.id AND v.position = 0
                WHERE o.id = ? AND o.valueSum IS NOT NULL AND o.valueCount IS NOT NULL
                """
        )
    }

    /// The running sum and count of a `mean`/`sum` outcome, with its value's measurement and ingest time.
    func running(outcomeID: Int64) throws -> (sum: Double, count: Int, measuredAt: Date, recordedAt: Date)? {
        runningStatement.setUncheckedArguments([outcomeID])
        guard let row = try Row.fetchOne(runningStatement) else { return nil }
        return (row[0], row[1], Date(timeIntervalSince1970: row[2]), Date(timeIntervalSince1970: row[3]))
    }

    func outcomeID(_ touch: SampleMatcher.Touch) throws -> Int64? {
        findOutcome.setUncheckedArguments([touch.version.record.uuid, touch.event.occurrence])
        return try Int64.fetchOne(findOutcome)
    }

    func lastValue(outcomeID: Int64) throws -> StoredValue? {
        lastValueStatement.setUncheckedArguments([outcomeID])
        guard let row = try Row.fetchOne(lastValueStatement) else { return nil }
        return StoredValue(
            position: row[0],
            value: row[1],
            measuredAt: Date(timeIntervalSince1970: row[2]),
            sampleID: SampleKey(stored: row[3]),
            recordedAt: Date(timeIntervalSince1970: row[4]),
            comparator: (row[5] as String?).flatMap(ValueComparator.init(rawValue:))
        )
    }

    /// Makes the event's outcome hold exactly `values` (none: the outcome is removed); `running` is the sum and
    /// count behind a `mean`/`sum` value.
    func replace(
        _ touch: SampleMatcher.Touch,
        values: [SampleMatcher.Contribution],
        running: (sum: Double, count: Int)? = nil,
        now: Date
    ) throws {
        let uuid = touch.version.record.uuid
        guard !values.isEmpty else {
            deleteOutcome.setUncheckedArguments([uuid, touch.event.occurrence])
            try deleteOutcome.execute()
            return
        }
        upsertOutcome.setUncheckedArguments([
            uuid, touch.version.record.id, touch.event.occurrence, touch.event.start.timeIntervalSince1970,
            touch.event.end.timeIntervalSince1970, now.timeIntervalSince1970, now.timeIntervalSince1970,
            running?.sum, running?.count,
        ])
        guard let id = try Int64.fetchOne(upsertOutcome) else { return }
        deleteValues.setUncheckedArguments([id])
        try deleteValues.execute()
        try insert(outcomeID: id, from: 0, values: values, unit: touch.version.task.linkage?.unit.rawValue ?? "1")
    }

    /// Adds values after the existing ones.
    func append(
        _ touch: SampleMatcher.Touch,
        outcomeID: Int64,
        from position: Int,
        values: [SampleMatcher.Contribution],
        now: Date
    ) throws {
        touchOutcome.setUncheckedArguments([now.timeIntervalSince1970, outcomeID])
        try touchOutcome.execute()
        try insert(
            outcomeID: outcomeID,
            from: position,
            values: values,
            unit: touch.version.task.linkage?.unit.rawValue ?? "1"
        )
    }

    private func insert(outcomeID: Int64, from position: Int, values: [SampleMatcher.Contribution], unit: String) throws
    {
        for (offset, value) in values.enumerated() {
            insertValue.setUncheckedArguments([
                outcomeID, position + offset, value.value, unit, value.measuredAt.timeIntervalSince1970,
                value.sampleID.uuid?.data, value.recordedAt.timeIntervalSince1970, value.comparator?.rawValue,
            ])
            try insertValue.execute()
        }
    }
}
