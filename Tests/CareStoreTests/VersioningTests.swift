import BridgeCore
import CarePlan
import CareStore
import Foundation
import Testing

@Suite struct VersioningTests {
    typealias F = StoreFixture

    func events(_ store: CareStore, from: Int, to: Int, task: String = "weigh-in") async throws -> [CareEvent] {
        try await store.events(
            matching: EventQuery(from: F.berlinTime(2026, 11, from), to: F.berlinTime(2026, 11, to), taskIDs: [task])
        )
    }

    @Test func updateEffectiveBeforeAnOutcomeIsRejectedWithTaskVersionAndDate() async throws {
        let fixture = try F()
        let first = try await fixture.store.addTask(F.weighIn())
        try await fixture.store.recordSample(F.weight(72, at: F.berlinTime(2026, 11, 10, 7)))
        var changed = F.weighIn(aggregation: .last)
        changed.effectiveDate = F.berlinTime(2026, 11, 10)  // exactly the start of the event with an outcome
        let error = try await #require(throws: CareStoreError.self) { try await fixture.store.updateTask(changed) }
        #expect(error.code == .versionWouldShadowOutcomes)
        #expect(error.taskID == "weigh-in")
        #expect(error.version == first.version)
        #expect(error.date == F.berlinTime(2026, 11, 10))
        #expect(error.message.contains("weigh-in") && error.message.contains("effectiveDate after"))
        // Nothing was written.
        #expect(try await fixture.store.taskVersions(id: "weigh-in").count == 1)
    }

    @Test func applyingAPlanThatWouldShadowOutcomesAppliesNothing() async throws {
        let fixture = try F()
        try await fixture.store.applyPlan(CarePlanDocument(tasks: [F.weighIn()]))
        try await fixture.store.recordSample(F.weight(72, at: F.berlinTime(2026, 11, 10, 7)))
        var retitled = F.weighIn()
        retitled.title = "Step on the scale"
        let newTask = F.medication()
        await #expect(throws: CareStoreError.self) {
            try await fixture.store.applyPlan(CarePlanDocument(tasks: [newTask, retitled]))
        }
        #expect(try await fixture.store.tasks().map(\.id) == ["weigh-in"])
    }

    @Test func reapplyingTheSamePlanIsANoOp() async throws {
        let fixture = try F()
        let plan = CarePlanDocument(tasks: [F.weighIn(), F.medication()])
        #expect(try await fixture.store.applyPlan(plan).added.sorted() == ["medication", "weigh-in"])
        try await fixture.store.recordSample(F.weight(72, at: F.berlinTime(2026, 11, 10, 7)))
        let again = try await fixture.store.applyPlan(plan)
        #expect(again.added.isEmpty && again.updated.isEmpty && again.unchanged.sorted() == ["medication", "weigh-in"])
    }

    @Test func newLinkageVersionNeverRewritesPastOutcomes() async throws {
        let fixture = try F()
        let v1 = try await fixture.store.addTask(F.weighIn(aggregation: .first, unit: .kilogram))
        try await fixture.store.recordSamples([
            F.weight(73, at: F.berlinTime(2026, 11, 10, 7), payload: 1),
            F.weight(72, at: F.berlinTime(2026, 11, 10, 20), payload: 2),
        ])
        let before = try await events(fixture.store, from: 10, to: 11).filter { $0.key.taskVersion == v1.version }
        let v2 = try await fixture.store.updateTask(
            F.weighIn(aggregation: .last, unit: .pound, effectiveDate: F.berlinTime(2026, 11, 15))
        )
        #expect(v2.versionNumber == 2 && v2.previousVersion == v1.version)
        let after = try await events(fixture.store, from: 10, to: 11).filter { $0.key.taskVersion == v1.version }
        #expect(after == before)
        // A late sample for a past day goes to the version in force then, under that version's rules.
        try await fixture.store.recordSample(F.weight(71, at: F.berlinTime(2026, 11, 12, 7), payload: 3))
        let twelfth = try #require(
            try await events(fixture.store, from: 12, to: 13).first { $0.start == F.berlinTime(2026, 11, 12) }
        )
        #expect(twelfth.key.taskVersion == v1.version && twelfth.outcome?.values.first?.unit == .kilogram)
        // From the effective date on, the new version applies.
        try await fixture.store.recordSample(F.weight(70, at: F.berlinTime(2026, 11, 16, 7), payload: 4))
        let sixteenth = try #require(
            try await events(fixture.store, from: 16, to: 17).first { $0.start == F.berlinTime(2026, 11, 16) }
        )
        #expect(sixteenth.key.taskVersion == v2.version)
        #expect(sixteenth.outcome?.values.first?.unit == .pound)
        // Each version numbers occurrences from its own schedule start; stable ids.
        #expect(sixteenth.id == "\(v2.version.uuidString.lowercased())#\(sixteenth.occurrence)")
    }

    @Test func deletionKeepsPastEventsAndHidesLaterOnes() async throws {
        let fixture = try F()
        try await fixture.store.addTask(F.weighIn())
        try await fixture.store.recordSample(F.weight(72, at: F.berlinTime(2026, 11, 10, 7)))
        try await fixture.store.deleteTask(id: "weigh-in", effective: F.berlinTime(2026, 11, 15))
        #expect(try await fixture.store.tasks().isEmpty)
        let versions = try await fixture.store.taskVersions(id: "weigh-in")
        #expect(versions.count == 2 && versions.last?.deletedDate != nil)
        #expect(try await events(fixture.store, from: 10, to: 11).first?.isCompleted == true)
        #expect(try await events(fixture.store, from: 15, to: 20).isEmpty)
        // Samples after the deletion match nothing.
        #expect(try await fixture.store.recordSample(F.weight(71, at: F.berlinTime(2026, 11, 16, 7))).unmatched == 1)
        await #expect(throws: CareStoreError.self) { try await fixture.store.deleteTask(id: "weigh-in") }
    }

    @Test func addingAnExistingTaskFails() async throws {
        let fixture = try F()
        try await fixture.store.addTask(F.medication())
        let error = try await #require(throws: CareStoreError.self) { try await fixture.store.addTask(F.medication()) }
        #expect(error.code == .taskExists)
    }
}
