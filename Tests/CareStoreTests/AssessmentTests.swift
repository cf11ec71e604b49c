import BridgeCore
import CarePlan
import CareStore
import Foundation
import Testing

@Suite struct AssessmentTests {
    typealias F = StoreFixture

    static func answered(_ id: String, _ answer: AnswerFormat) -> CareTask {
        CareTask(
            id: id,
            title: id,
            kind: .assessment,
            schedule: .daily(
                hour: 0,
                start: WallClockTime(year: 2026, month: 11, day: 1),
                duration: .allDay,
                timeZone: .fixed("Europe/Berlin")
            ),
            answer: answer
        )
    }

    static let now = F.berlinTime(2026, 11, 20, 22)

    @Test func scaleAnswersAreCheckedAndStoredWithTheirLabel() async throws {
        let fixture = try F()
        try await fixture.store.addTask(Self.answered("pain", .scale(min: 0, max: 10, step: 1, labels: [10: "worst"])))
        let at = F.berlinTime(2026, 11, 20, 9)
        let result = try await fixture.store.complete(
            taskID: "pain",
            occurrence: nil,
            at: at,
            entry: Completion(answer: "worst", note: "after the walk"),
            now: Self.now
        )
        #expect(result.changed && !result.corrected)
        let value = try #require(result.event.outcome?.values.first)
        #expect(value.value == 10 && value.text == "worst" && value.measuredAt == at)
        #expect(result.event.outcome?.note == "after the walk")
        #expect(result.event.isCompleted)
        for bad in ["11", "2.5", "-1", "much"] {
            let error = try await #require(throws: CareStoreError.self) {
                try await fixture.store.complete(
                    taskID: "pain",
                    occurrence: nil,
                    at: at,
                    entry: Completion(answer: bad),
                    now: Self.now
                )
            }
            #expect(error.code == .invalidAnswer && error.message.contains("pain"))
        }
        // A correction replaces the answer and keeps the note.
        let corrected = try await fixture.store.complete(
            taskID: "pain",
            occurrence: nil,
            at: at,
            entry: Completion(answer: "3"),
            now: Self.now
        )
        #expect(corrected.corrected && corrected.event.outcome?.values.map(\.value) == [3])
        #expect(corrected.event.outcome?.note == "after the walk")
        // Without an answer the task refuses.
        let missing = try await #require(throws: CareStoreError.self) {
            try await fixture.store.complete(
                taskID: "pain",
                occurrence: nil,
                at: at.addingTimeInterval(-86_400),
                entry: Completion(),
                now: Self.now
            )
        }
        #expect(missing.code == .invalidAnswer && missing.message.contains("--value"))
    }

    @Test func yesNoChoiceTextDurationAndCount() async throws {
        let fixture = try F()
        let tasks: [(CareTask, String, Double, String?)] = [
            (Self.answered("nausea", .yesNo), "Yes", 1, "yes"),
            (Self.answered("mood", .choice(["low", "ok", "good"])), "GOOD", 2, "good"),
            (Self.answered("diary", .text), "slept badly", 1, "slept badly"),
            (Self.answered("sleep", .duration), "7h30m", 27_000, nil),
            (Self.answered("falls", .count), "2", 2, nil),
        ]
        for (task, input, value, text) in tasks {
            try await fixture.store.addTask(task)
            let result = try await fixture.store.complete(
                taskID: task.id,
                occurrence: nil,
                at: F.berlinTime(2026, 11, 20, 9),
                entry: Completion(answer: input),
                now: Self.now
            )
            #expect(result.event.outcome?.values.map(\.value) == [value], "\(task.id)")
            #expect(result.event.outcome?.values.first?.text == text, "\(task.id)")
        }
        await #expect(throws: CareStoreError.self) {
            try await fixture.store.complete(
                taskID: "mood",
                occurrence: nil,
                at: F.berlinTime(2026, 11, 21, 9),
                entry: Completion(answer: "great"),
                now: Self.now
            )
        }
        await #expect(throws: CareStoreError.self) {
            try await fixture.store.complete(
                taskID: "falls",
                occurrence: nil,
                at: F.berlinTime(2026, 11, 21, 9),
                entry: Completion(answer: "-1"),
                now: Self.now
            )
        }
    }

    @Test func notDoneWithAReasonIsNotCompletedAndCanBeUndoneByCompleting() async throws {
        let fixture = try F()
        try await fixture.store.addTask(F.medication())
        let at = F.berlinTime(2026, 11, 20, 8, 30)
        let skipped = try await fixture.store.complete(
            taskID: "medication",
            occurrence: nil,
            at: at,
            entry: Completion(notDoneReason: "felt dizzy"),
            now: Self.now
        )
        #expect(skipped.event.outcome?.notDoneReason == "felt dizzy")
        #expect(skipped.event.outcome?.values.isEmpty == true && !skipped.event.isCompleted)
        let done = try await fixture.store.complete(
            taskID: "medication",
            occurrence: nil,
            at: at,
            entry: Completion(),
            now: Self.now
        )
        #expect(done.corrected && done.event.isCompleted && done.event.outcome?.notDoneReason == nil)
        // An answer to a task without an answer format is refused.
        let error = try await #require(throws: CareStoreError.self) {
            try await fixture.store.complete(
                taskID: "medication",
                occurrence: nil,
                at: at,
                entry: Completion(answer: "7"),
                now: Self.now
            )
        }
        #expect(error.code == .invalidAnswer)
    }

    @Test func atPicksTheFirstEventNotYetDoneAmongSimultaneousDoses() async throws {
        let fixture = try F()
        var task = F.medication()
        task.schedule = Schedule(
            timeZonePolicy: .fixed("Europe/Berlin"),
            elements: Array(
                repeating: ScheduleElement(
                    start: WallClockTime(year: 2026, month: 11, day: 1, hour: 8),
                    interval: ScheduleInterval(days: 1),
                    duration: .hours(1)
                ),
                count: 4
            )
        )
        try await fixture.store.addTask(task)
        let at = F.berlinTime(2026, 11, 20, 8, 15)
        var occurrences: [Int] = []
        for _ in 0..<4 {
            let result = try await fixture.store.complete(
                taskID: "medication",
                occurrence: nil,
                at: at,
                entry: Completion(),
                now: Self.now
            )
            #expect(result.changed)
            occurrences.append(result.event.occurrence)
        }
        #expect(occurrences == [76, 77, 78, 79])
        // All four done: a fifth completion changes nothing.
        let fifth = try await fixture.store.complete(
            taskID: "medication",
            occurrence: nil,
            at: at,
            entry: Completion(),
            now: Self.now
        )
        #expect(!fifth.changed && fifth.event.occurrence == 76)
    }

    @Test func futureTimesNeedForce() async throws {
        let fixture = try F()
        try await fixture.store.addTask(F.medication())
        let now = F.berlinTime(2026, 11, 20, 7, 0)
        let error = try await #require(throws: CareStoreError.self) {
            try await fixture.store.complete(
                taskID: "medication",
                occurrence: nil,
                at: F.berlinTime(2026, 11, 20, 8, 10),
                entry: Completion(),
                now: now
            )
        }
        #expect(error.code == .futureTime && error.message.contains("--force"))
        let forced = try await fixture.store.complete(
            taskID: "medication",
            occurrence: nil,
            at: F.berlinTime(2026, 11, 20, 8, 10),
            entry: Completion(allowFuture: true),
            now: now
        )
        #expect(forced.event.isCompleted)
        // Within five minutes of clock skew is accepted.
        _ = try await fixture.store.complete(
            taskID: "medication",
            occurrence: nil,
            at: F.berlinTime(2026, 11, 21, 8, 3),
            entry: Completion(),
            now: F.berlinTime(2026, 11, 21, 7, 59)
        )
    }

    @Test func answerFormatsAndRulesSurviveTheStoreAndVersioning() async throws {
        let fixture = try F()
        var task = Self.answered("pain", .scale(min: 0, max: 10, step: 0.5, labels: [0: "none"]))
        task.alerts = [
            AlertRule(id: "high", severity: .critical, condition: .compare(.greaterThanOrEqual, 7, unit: nil))
        ]
        try await fixture.store.addTask(task)
        let stored = try #require(try await fixture.store.tasks().first)
        #expect(stored.task.answer == task.answer && stored.task.alerts == task.alerts)
        // Applying the same plan again is a no-op; changing a rule is a new version.
        let again = try await fixture.store.applyPlan(CarePlanDocument(tasks: [task]))
        #expect(again.unchanged == ["pain"])
        task.alerts[0].condition = .compare(.greaterThanOrEqual, 8, unit: nil)
        let changed = try await fixture.store.applyPlan(CarePlanDocument(tasks: [task]))
        #expect(changed.updated == ["pain"])
        #expect(try await fixture.store.taskVersions(id: "pain").map(\.versionNumber) == [1, 2])
    }
}
