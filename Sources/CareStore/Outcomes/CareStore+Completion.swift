import BridgeCore
public import CarePlan
public import Foundation
import GRDB

extension CareStore {
    /// How far in the future a completion time may lie without ``Completion/allowFuture`` (clock skew between
    /// the person's watch and the bridge).
    public static let futureTolerance: TimeInterval = 300

    /// Records a completion by hand: done, an answer (checked against the task's ``AnswerFormat``), a note, or
    /// not done with a reason.
    ///
    /// Without `occurrence` the event is the first one containing `at` that is not done yet (a day with four
    /// doses at the same time of day completes them one after another), else the first containing it. An
    /// answer or "not done" on an event that already has an outcome replaces it (a correction); a note alone
    /// is added to the existing outcome.
    /// - Throws: ``CareStoreError`` `.futureTime` (`at` is more than ``futureTolerance`` after `now` and the
    ///   entry does not allow it), `.invalidAnswer` (an answer outside the format, an answer to a task that
    ///   asks for none, or no answer to a task that asks for one), and the errors of
    ///   ``complete(taskID:occurrence:at:now:)``.
    @discardableResult
    public func complete(
        taskID: String,
        occurrence: Int?,
        at: Date,
        entry: Completion,
        now: Date = Date()
    ) async throws(CareStoreError) -> CompletionResult {
        try checkNotFuture(taskID: taskID, at: at, entry: entry, now: now)
        let zone = bridgeZone
        let result = try await write { db -> CompletionResult in
            try Self.record(db, taskID: taskID, occurrence: occurrence, at: at, entry: entry, now: now, zone: zone)
        }
        if result.changed { broadcaster.publish([.eventUpdated(result.event.key)]) }
        return result
    }

    private func checkNotFuture(taskID: String, at: Date, entry: Completion, now: Date) throws(CareStoreError) {
        if at > now.addingTimeInterval(Self.futureTolerance), !entry.allowFuture {
            let utc = TimeZone(secondsFromGMT: 0)!
            throw CareStoreError(
                .futureTime,
                "\(Timestamp.format(at, in: bridgeZone)) is in the future (now \(Timestamp.format(now, in: utc))); "
                    + "pass --force to record it anyway",
                taskID: taskID,
                date: at
            )
        }
    }

    /// Writes one completion in the caller's transaction.
    private static func record(
        _ db: Database,
        taskID: String,
        occurrence: Int?,
        at: Date,
        entry: Completion,
        now: Date,
        zone: TimeZone
    ) throws -> CompletionResult {
        let (version, scheduled) = try Self.resolveOpenEvent(
            db,
            taskID: taskID,
            occurrence: occurrence,
            at: at,
            zone: zone
        )
        let format = version.task.answer
        var answer: (value: Double, text: String?)?
        if let text = entry.answer {
            guard let format else {
                throw CareStoreError(
                    .invalidAnswer,
                    "task '\(taskID)' asks for no answer; complete it without --value/--answer",
                    taskID: taskID,
                    version: version.uuid
                )
            }
            do throws(AnswerFormat.Refusal) {
                answer = try format.parse(text)
            } catch {
                throw CareStoreError(
                    .invalidAnswer,
                    "task '\(taskID)' (\(Self.describe(format))): \(error.message)",
                    taskID: taskID,
                    version: version.uuid
                )
            }
        } else if let format, entry.notDoneReason == nil {
            let existing = try Int64.fetchOne(
                db,
                sql: "SELECT id FROM outcome WHERE taskUUID = ? AND occurrence = ? AND notDoneReason IS NULL",
                arguments: [version.record.uuid, scheduled.occurrence]
            )
            if existing == nil || entry.note == nil {
                throw CareStoreError(
                    .invalidAnswer,
                    "task '\(taskID)' asks for an answer (\(Self.describe(format))); give it with --value or "
                        + "--answer",
                    taskID: taskID,
                    version: version.uuid
                )
            }
        }
        let row = try Row.fetchOne(
            db,
            sql: "SELECT id, note, notDoneReason FROM outcome WHERE taskUUID = ? AND occurrence = ?",
            arguments: [version.record.uuid, scheduled.occurrence]
        )
        var outcomeID: Int64? = row?["id"]
        let oldNote: String? = row?["note"]
        let oldReason: String? = row?["notDoneReason"]
        let values = try OutcomeValueRecord.filter(Column("outcomeID") == outcomeID ?? -1)
            .order(Column("position")).fetchAll(db)
        var newValues: [OutcomeValueRecord]? = nil
        var newReason = oldReason
        if let reason = entry.notDoneReason {
            newValues = []
            newReason = reason
        } else if let answer {
            newValues = [
                OutcomeValueRecord(
                    outcomeID: 0,
                    position: 0,
                    value: answer.value,
                    unit: format!.unit.rawValue,
                    measuredAt: at,
                    sampleID: nil,
                    recordedAt: now,
                    text: answer.text
                )
            ]
            newReason = nil
        } else if outcomeID == nil || oldReason != nil {
            newValues = [
                OutcomeValueRecord(
                    outcomeID: 0,
                    position: 0,
                    value: 1,
                    unit: "1",
                    measuredAt: at,
                    sampleID: nil,
                    recordedAt: now,
                    text: nil
                )
            ]
            newReason = nil
        }
        let newNote = entry.note ?? oldNote
        let sameValues =
            newValues.map { new in
                new.count == values.count
                    && zip(new, values).allSatisfy { $0.value == $1.value && $0.text == $1.text }
            } ?? true
        let changed = outcomeID == nil || !sameValues || newNote != oldNote || newReason != oldReason
        let corrected = outcomeID != nil && (!sameValues || newReason != oldReason)
        if changed {
            if let id = outcomeID {
                try db.execute(
                    sql: "UPDATE outcome SET updatedDate = ?, note = ?, notDoneReason = ? WHERE id = ?",
                    arguments: [now.timeIntervalSince1970, newNote, newReason, id]
                )
            } else {
                let outcome = try OutcomeRecord(
                    id: nil,
                    taskUUID: version.record.uuid,
                    taskID: taskID,
                    occurrence: scheduled.occurrence,
                    eventStart: scheduled.start,
                    eventEnd: scheduled.end,
                    createdDate: now,
                    updatedDate: now,
                    note: newNote,
                    notDoneReason: newReason
                ).inserted(db)
                outcomeID = outcome.id
            }
            if let author = entry.author, let id = outcomeID {
                try db.execute(sql: "UPDATE outcome SET author = ? WHERE id = ?", arguments: [author, id])
            }
            if let newValues, !sameValues, let id = outcomeID {
                try db.execute(sql: "DELETE FROM outcomeValue WHERE outcomeID = ?", arguments: [id])
                for (position, var value) in newValues.enumerated() {
                    value.outcomeID = id
                    value.position = position
                    try value.insert(db)
                }
            }
        }
        let event = try Self.events(db, version: version, scheduled: [scheduled], zone: zone)[0]
        return CompletionResult(event: event, changed: changed, corrected: corrected)
    }

    /// `a scale 0–10`, `yes or no`, `one of: a, b`, …
    public static func describe(_ format: AnswerFormat) -> String {
        switch format {
        case .scale(let min, let max, let step, _):
            "a scale \(AnswerFormat.format(min))–\(AnswerFormat.format(max))"
                + (step == 1 ? "" : " in steps of \(AnswerFormat.format(step))")
        case .yesNo: "yes or no"
        case .choice(let options): "one of: \(options.joined(separator: ", "))"
        case .text: "free text"
        case .duration: "a duration such as 7h30m"
        case .count: "a count"
        }
    }

    /// The event as ``resolveEvent(_:taskID:occurrence:at:zone:lateToday:)`` finds it, except that among several
    /// events containing `at` the first without an outcome (or marked not done) is taken, and that when none
    /// contains `at` the most recent event of that day that began before it and has no outcome is taken (a dose
    /// taken late: `--at 11:30` for an 08:00–10:00 window).
    static func resolveOpenEvent(
        _ db: Database,
        taskID: String,
        occurrence: Int?,
        at: Date,
        zone: TimeZone
    ) throws -> (TaskVersion, ScheduledEvent) {
        let (version, first) = try resolveEvent(
            db,
            taskID: taskID,
            occurrence: occurrence,
            at: at,
            zone: zone,
            lateToday: true
        )
        guard occurrence == nil else { return (version, first) }
        let candidates = version.task.schedule.storeEvents(containing: at, zone: zone)
        guard candidates.count > 1 else { return (version, first) }
        let done = try Set(
            Int.fetchAll(
                db,
                sql: """
                    SELECT occurrence FROM outcome WHERE taskUUID = ? AND notDoneReason IS NULL
                    AND occurrence BETWEEN ? AND ?
                    """,
                arguments: [
                    version.record.uuid, candidates.map(\.occurrence).min()!, candidates.map(\.occurrence).max()!,
                ]
            )
        )
        return (version, candidates.first { !done.contains($0.occurrence) } ?? first)
    }
}
