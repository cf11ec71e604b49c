import BridgeCore
import BridgeFoundation
import CarePlan
import CareStore
import Foundation
import GATTDecoding
import Insights
import Testing

/// The insights of a fixed two-week history, compared with `Golden/insights-week.json`
/// (`RECORD_SNAPSHOTS=1 swift test --filter InsightsGoldenTests` re-records it after a deliberate change).
@Suite struct InsightsGoldenTests {
    typealias F = AlertFixture
    static var golden: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
    }

    /// Two weeks: pain answered daily, medication twice a day with every third evening missed, a weigh-in with a
    /// jump on 11-19, a day marked not done.
    static func history() async throws -> F {
        let fixture = try F()
        try await fixture.store.addTask(
            F.pain([
                AlertRule(
                    id: "pain-high",
                    condition: .compare(.greaterThanOrEqual, 7, unit: nil),
                    message: "Pain {value} on {day}"
                )
            ])
        )
        try await fixture.store.addTask(
            F.weighIn([
                AlertRule(id: "gain", severity: .critical, condition: .trend(change: 2, days: 3, unit: nil)),
                AlertRule(id: "heavy", condition: .compare(.greaterThan, 78, unit: nil)),
            ])
        )
        try await fixture.store.addTask(
            F.medication([AlertRule(id: "missed", condition: .adherence(fewerThan: 2, by: nil))]),
            at: F.time(2026, 10, 1)
        )
        for day in 9...22 {
            try await fixture.answer("pain", String(day * 7 % 9), at: F.time(2026, 11, day, 9))
            try await fixture.store.complete(
                taskID: "medication",
                at: F.time(2026, 11, day, 8, 10),
                now: F.time(2026, 11, day, 9)
            )
            if day % 3 != 0 {
                try await fixture.store.complete(
                    taskID: "medication",
                    at: F.time(2026, 11, day, 20, 10),
                    now: F.time(2026, 11, day, 21)
                )
            } else if day == 21 {
                try await fixture.store.complete(
                    taskID: "medication",
                    occurrence: nil,
                    at: F.time(2026, 11, day, 20, 10),
                    entry: Completion(notDoneReason: "out of tablets"),
                    now: F.time(2026, 11, day, 21)
                )
            }
            try await fixture.weight(
                72 + Double(day - 9) * 0.3 + (day == 19 ? 2.5 : 0),
                at: F.time(2026, 11, day, 7, 30)
            )
        }
        try await AlertEngine.evaluate(store: fixture.store, from: F.time(2026, 11, 9), now: F.time(2026, 11, 23, 12))
        return fixture
    }

    @Test func weekInsightsMatchTheGoldenFile() async throws {
        let fixture = try await Self.history()
        let report = try await InsightsBuilder.build(
            store: fixture.store,
            from: F.time(2026, 11, 16),
            to: F.time(2026, 11, 23)
        )
        let text = report.json.serialized(pretty: true) + "\n"
        let url = Self.golden.appendingPathComponent("insights-week.json")
        if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" {
            try FileManager.default.createDirectory(at: Self.golden, withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        #expect(text == expected, "insights JSON differs from \(url.path); RECORD_SNAPSHOTS=1 re-records it")
        // A few facts the golden file must show, checked independently of it.
        let medication = try #require(report.tasks.first { $0.id == "medication" })
        #expect(medication.completion.completed == 12 && medication.completion.total == 14)
        #expect(medication.completion.notDone == 1)
        #expect(medication.previousCompletion.completed == 11)
        let weight = try #require(report.tasks.first { $0.id == "weigh-in" })
        #expect(weight.values?.max == 72 + 10 * 0.3 + 2.5)
        #expect(report.messages.first?.severity == .critical)
        #expect(report.days == (16...22).map { "2026-11-\($0)" })
    }
}
