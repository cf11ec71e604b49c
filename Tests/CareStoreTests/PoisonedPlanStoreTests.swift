import BridgeCore
import CarePlan
import CareStore
import Foundation
import GRDB
import TestSupport
import Testing

/// A store written by a release that accepted any number in a plan (`"duration": 1e19`, `"fewerThan":
/// 9223372036854775807`) is refused with an explanation naming the task, its version and the field, never
/// crashed on: listing events, completing, ingesting and applying a plan each throw.
@Suite struct PoisonedPlanStoreTests {
    typealias F = StoreFixture

    /// The poisoned columns, as the earlier release stored them: (name, column, the stored text's valid form,
    /// the poisoned form, what the error must say).
    struct Poison: Sendable, CustomStringConvertible {
        var name: String
        var column: String
        var valid: String
        var poisoned: String
        var fragment: String
        var description: String { name }
    }

    static let poisons: [Poison] = [
        Poison(
            name: "duration 1e19",
            column: "schedule",
            valid: #""duration":3600"#,
            poisoned: #""duration":1e19"#,
            fragment: "1e+19 is out of range (0…31622400)"
        ),
        Poison(
            name: "adherence fewerThan 2^63-1",
            column: "alerts",
            valid: #""fewerThan":1"#,
            poisoned: #""fewerThan":9223372036854775807"#,
            fragment: "out of range (1…100000)"
        ),
        Poison(
            name: "trend withinDays 1e19",
            column: "alerts",
            valid: #""withinDays":3"#,
            poisoned: #""withinDays":1e19"#,
            fragment: "out of range (1…36500)"
        ),
    ]

    /// A linked assessment with an hourly event, an adherence rule and a trend rule.
    static func task() -> CareTask {
        var task = F.weighIn(duration: .hours(1), hour: 8)
        task.alerts = [
            AlertRule(id: "missed", condition: .adherence(fewerThan: 1, by: nil)),
            AlertRule(id: "gain", condition: .trend(change: 2, days: 3, unit: nil)),
        ]
        return task
    }

    /// Writes a store holding `poison`: the task added as this release would, then its column rewritten the
    /// way the earlier release would have stored it (a new version uuid, so no decoded copy is cached).
    static func poisonedStore(_ poison: Poison) async throws -> (F, CareStore) {
        let fixture = try F()
        try await fixture.store.addTask(task(), at: F.berlinTime(2026, 10, 1))
        let path = fixture.directory.path("care/store.sqlite")
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            let stored = try String.fetchOne(db, sql: "SELECT \(poison.column) FROM task") ?? ""
            #expect(stored.contains(poison.valid), "\(stored)")
            try db.execute(
                sql: """
                    UPDATE task SET uuid = lower(hex(randomblob(16))),
                    \(poison.column) = replace(\(poison.column), ?, ?)
                    """,
                arguments: [poison.valid, poison.poisoned]
            )
        }
        try queue.close()
        let store = try CareStore(path: path, bridgeZone: F.berlin, logger: .quiet)
        return (fixture, store)
    }

    static func expectRefusal(_ poison: Poison, _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("\(poison.name): accepted")
        } catch let error as CareStoreError {
            #expect(error.code == .corruptRow, "\(error)")
            #expect(error.taskID == "weigh-in")
            #expect(error.message.contains(poison.fragment), "\(error.message)")
            #expect(error.message.contains("task 'weigh-in' version 1"), "\(error.message)")
            #expect(error.message.contains("backup"), "\(error.message)")
        } catch {
            Issue.record("\(poison.name): \(error)")
        }
    }

    @Test(arguments: poisons)
    func eventsCompletionIngestAndPlanApplyRefuseThePoisonedStore(_ poison: Poison) async throws {
        let (fixture, store) = try await Self.poisonedStore(poison)
        _ = fixture
        let day = F.berlinTime(2026, 11, 10, 8, 30)
        await Self.expectRefusal(poison) {
            _ = try await store.events(
                matching: EventQuery(from: F.berlinTime(2026, 11, 10), to: F.berlinTime(2026, 11, 11))
            )
        }
        await Self.expectRefusal(poison) {
            _ = try await store.complete(taskID: "weigh-in", at: day, now: day)
        }
        await Self.expectRefusal(poison) {
            _ = try await store.recordSample(F.weight(72, at: day), recordedAt: day)
        }
        await Self.expectRefusal(poison) {
            _ = try await store.applyPlan(CarePlanDocument(tasks: [F.medication()]), at: day)
        }
        #expect(try await store.sampleCount() == 0)
    }
}
