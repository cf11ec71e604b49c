import BridgeCore
import CarePlan
import CareStore
import Foundation
import Testing

@Suite struct InterventionTests {
    typealias F = StoreFixture

    @Test func completesTheEventContainingTheTime() async throws {
        let fixture = try F()
        try await fixture.store.addTask(F.medication())
        let event = try await fixture.store.complete(taskID: "medication", at: F.berlinTime(2026, 11, 10, 8, 20))
        #expect(event.isCompleted)
        #expect(event.start == F.berlinTime(2026, 11, 10, 8))
        #expect(event.outcome?.values.first?.measuredAt == F.berlinTime(2026, 11, 10, 8, 20))
        let listed = try await fixture.store.events(
            matching: EventQuery(from: F.berlinTime(2026, 11, 10), to: F.berlinTime(2026, 11, 11))
        )
        #expect(listed.map(\.isCompleted) == [true])
    }

    @Test func completesByOccurrenceAndUncompletes() async throws {
        let fixture = try F()
        try await fixture.store.addTask(F.medication())
        // Occurrence 9 is the tenth daily event: 2026-11-10 08:00.
        let event = try await fixture.store.complete(
            taskID: "medication",
            occurrence: 9,
            at: F.berlinTime(2026, 11, 10, 12)
        )
        #expect(event.start == F.berlinTime(2026, 11, 10, 8) && event.isCompleted)
        // Completing again changes nothing.
        let again = try await fixture.store.complete(
            taskID: "medication",
            occurrence: 9,
            at: F.berlinTime(2026, 11, 10, 13)
        )
        #expect(again.outcome == event.outcome)
        let undone = try await fixture.store.uncomplete(
            taskID: "medication",
            occurrence: 9,
            at: F.berlinTime(2026, 11, 10, 12)
        )
        #expect(undone.outcome == nil && !undone.isCompleted)
    }

    @Test func beforeTheDaysFirstEventIsAnErrorThatNamesTheDaysEvents() async throws {
        let fixture = try F()
        try await fixture.store.addTask(F.medication())
        let error = try await #require(throws: CareStoreError.self) {
            try await fixture.store.complete(taskID: "medication", at: F.berlinTime(2026, 11, 10, 7))
        }
        #expect(error.code == .eventNotFound && error.taskID == "medication")
        #expect(error.message.contains("its events that day: #9 08:00–09:00 (open)"), "\(error.message)")
        let unknown = try await #require(throws: CareStoreError.self) {
            try await fixture.store.complete(taskID: "nope")
        }
        #expect(unknown.code == .taskNotFound)
    }

    @Test func aDoseTakenLateCompletesTheDaysOpenEventAtTheTimeItWasTaken() async throws {
        let fixture = try F()
        try await fixture.store.addTask(F.medication())
        let late = try await fixture.store.complete(taskID: "medication", at: F.berlinTime(2026, 11, 10, 11, 30))
        #expect(late.occurrence == 9 && late.start == F.berlinTime(2026, 11, 10, 8) && late.isCompleted)
        #expect(late.outcome?.values.first?.measuredAt == F.berlinTime(2026, 11, 10, 11, 30))
        // Done: a second late completion has no open event that day and says what the day holds.
        let again = try await #require(throws: CareStoreError.self) {
            try await fixture.store.complete(taskID: "medication", at: F.berlinTime(2026, 11, 10, 12))
        }
        #expect(again.code == .eventNotFound)
        #expect(again.message.contains("no earlier one that day is still open"), "\(again.message)")
        #expect(again.message.contains("#9 08:00–09:00 (recorded)"), "\(again.message)")
        // Not the day before's: a dose missed yesterday is not completed by today's late tick.
        let yesterday = try await #require(throws: CareStoreError.self) {
            try await fixture.store.complete(taskID: "medication", at: F.berlinTime(2026, 11, 11, 7))
        }
        #expect(yesterday.code == .eventNotFound)
        // Uncomplete stays strict: outside every window is an error, not the day's event.
        await #expect(throws: CareStoreError.self) {
            try await fixture.store.uncomplete(
                taskID: "medication",
                occurrence: nil,
                at: F.berlinTime(2026, 11, 10, 12)
            )
        }
    }

    @Test func linkedAssessmentsAreCompletedBySamplesNotByHand() async throws {
        let fixture = try F()
        try await fixture.store.addTask(F.weighIn())
        let error = try await #require(throws: CareStoreError.self) {
            try await fixture.store.complete(taskID: "weigh-in", at: F.berlinTime(2026, 11, 10, 12))
        }
        #expect(error.code == .wrongTaskKind)
    }

    @Test func eventsAreSortedByStartThenTask() async throws {
        let fixture = try F()
        var early = F.medication()
        early.id = "a-early"
        try await fixture.store.applyPlan(CarePlanDocument(tasks: [F.weighIn(), F.medication(), early]))
        let events = try await fixture.store.events(
            matching: EventQuery(from: F.berlinTime(2026, 11, 10), to: F.berlinTime(2026, 11, 12))
        )
        #expect(events.map(\.taskID) == ["weigh-in", "a-early", "medication", "weigh-in", "a-early", "medication"])
    }

    @Test func adherenceCountsCompletedPerLocalDay() async throws {
        let fixture = try F()
        try await fixture.store.applyPlan(CarePlanDocument(tasks: [F.weighIn(), F.medication()]))
        try await fixture.store.recordSample(F.weight(72, at: F.berlinTime(2026, 11, 10, 23, 30)))
        try await fixture.store.complete(taskID: "medication", at: F.berlinTime(2026, 11, 11, 8, 5))
        let days = try await fixture.store.adherence(from: F.berlinTime(2026, 11, 10), to: F.berlinTime(2026, 11, 12))
        #expect(days.map(\.day) == ["2026-11-10", "2026-11-11"])
        #expect(days.map(\.completed) == [1, 1])
        #expect(days.map(\.total) == [2, 2])
        let interventions = try await fixture.store.adherence(
            from: F.berlinTime(2026, 11, 10),
            to: F.berlinTime(2026, 11, 12),
            kinds: [.intervention]
        )
        #expect(interventions.map(\.completed) == [0, 1])
    }
}
