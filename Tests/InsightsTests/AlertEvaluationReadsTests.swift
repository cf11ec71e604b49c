import AlertDelivery
import BridgeCore
import CarePlan
import CareStore
import Foundation
import GRDB
import Insights
import Logging
import Synchronization
import Testing

/// Evaluating the rules reads the store a fixed number of times, however many tasks it holds: the task versions
/// once, not once per task (300 / 1,000 / 3,000 tasks made an ingest take 1.2 / 12.3 / 121 s).
@Suite struct AlertEvaluationReadsTests {
    typealias F = AlertFixture

    /// Counts the SQL statements a store runs.
    final class StatementCounter: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
        func add() { count.withLock { $0 += 1 } }
    }

    /// A store with a weigh-in that has a threshold, a medication with an adherence rule, and `plainTasks`
    /// tasks without rules (half interventions, half linked to heart rate), on an in-memory database whose
    /// statements are counted.
    static func store(plainTasks: Int) async throws -> (CareStore, StatementCounter) {
        let counter = StatementCounter()
        let applied = F.time(2026, 10, 1)
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            db.trace { event in
                guard case .statement(let statement) = event, !Self.isTransactionControl(statement.sql) else { return }
                counter.add()
            }
        }
        let store = try CareStore(
            writer: try DatabaseQueue(configuration: configuration),
            bridgeZone: F.berlin,
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        )
        try await store.addTask(
            F.weighIn([AlertRule(id: "heavy", condition: .compare(.greaterThan, 90, unit: nil))]),
            at: applied
        )
        try await store.addTask(
            F.medication([AlertRule(id: "missed", condition: .adherence(fewerThan: 2, by: nil))]),
            at: applied
        )
        for index in 0..<plainTasks {
            try await store.addTask(
                CareTask(
                    id: "plain-\(index)",
                    title: "Plain \(index)",
                    kind: index.isMultiple(of: 2) ? .intervention : .assessment,
                    schedule: F.daily(),
                    linkage: index.isMultiple(of: 2)
                        ? nil : SampleLinkage(type: .heartRate, unit: .perMinute, aggregation: .mean)
                ),
                at: applied
            )
        }
        let sample = try ManualReading.sample(
            type: .bodyMass,
            value: 95,
            unit: "kg",
            at: F.time(2026, 11, 20, 8),
            receivedAt: F.time(2026, 11, 20, 8)
        )
        try await store.recordSample(sample, recordedAt: F.time(2026, 11, 20, 8))
        return (store, counter)
    }

    /// Whether `sql` only opens or closes a transaction. GRDB ends an async read's transaction (`COMMIT`, `PRAGMA
    /// query_only = 0`) after it has handed the result back, so those land on either side of a count taken right
    /// after the read; only the statements that do the work are counted.
    static func isTransactionControl(_ sql: String) -> Bool {
        ["BEGIN", "COMMIT", "ROLLBACK", "PRAGMA query_only"].contains { sql.hasPrefix($0) }
    }

    /// How many statements one evaluation runs.
    static func statements(plainTasks: Int, types: Set<QuantityType>?) async throws -> (Int, AlertReconciliation) {
        let (store, counter) = try await Self.store(plainTasks: plainTasks)
        let before = counter.value
        let result = try await AlertEngine.evaluate(
            store: store,
            from: F.time(2026, 11, 20),
            now: F.time(2026, 11, 21, 12),
            types: types
        )
        return (counter.value - before, result)
    }

    @Test(arguments: [nil, [QuantityType.bodyMass]] as [Set<QuantityType>?])
    func anEvaluationReadsTheStoreAsOftenWithTenTimesTheTasks(types: Set<QuantityType>?) async throws {
        let (few, fewResult) = try await Self.statements(plainTasks: 10, types: types)
        let (many, manyResult) = try await Self.statements(plainTasks: 100, types: types)
        // The weigh-in's threshold and the medication's missed day (11-20) trip either way.
        #expect(fewResult.raised.count == 2 && manyResult.raised.count == 2)
        if types == nil {
            // Every linked task is judged (a LO/HI reading alerts on any): at most its events are read, one query
            // each, for the 45 more linked tasks; nothing is read once per task of the store.
            #expect(many - few <= 45)
        } else {
            #expect(many == few)
        }
    }

    @Test func onlyTheTasksWithRulesOrLinkedToTheTypeAreEvaluated() async throws {
        let (store, _) = try await Self.store(plainTasks: 4)
        #expect(Set(try await store.ruleTaskVersions().map(\.id)) == ["weigh-in", "medication", "plain-1", "plain-3"])
        #expect(Set(try await store.ruleTaskVersions(linkedTo: [.bodyMass]).map(\.id)) == ["weigh-in", "medication"])
        #expect(Set(try await store.ruleTaskVersions(linkedTo: []).map(\.id)) == ["weigh-in", "medication"])
        #expect(try await AlertService.planHasRules(store))
        #expect(try await store.taskIDs().count == 6)
    }

    @Test func findingWhetherThePlanHasRulesReadsTheStoreAsOftenWithTenTimesTheTasks() async throws {
        var counts: [Int] = []
        for plainTasks in [10, 100] {
            let (store, counter) = try await Self.store(plainTasks: plainTasks)
            let before = counter.value
            #expect(try await AlertService.planHasRules(store))
            counts.append(counter.value - before)
        }
        #expect(counts[0] == counts[1])
    }
}
