import BridgeCore
import CarePlan
import CareReport
import CareStore
import Foundation
import Insights
import Testing

/// Thresholds judge every reading of the linked type, not only the value an event's aggregation kept; insights
/// show the true range of what was measured.
@Suite struct EveryReadingThresholdTests {
    typealias F = AlertFixture

    /// A morning blood pressure (08:00–10:00, the first reading completes the event), alert above 160 mmHg.
    static func bloodPressure() -> CareTask {
        CareTask(
            id: "bp",
            title: "Blood pressure",
            kind: .assessment,
            schedule: F.daily(hour: 8, duration: .hours(2)),
            linkage: SampleLinkage(
                type: .bloodPressureSystolic,
                unit: .millimetreOfMercury,
                aggregation: .first
            ),
            alerts: [AlertRule(id: "high", severity: .critical, condition: .compare(.greaterThan, 160, unit: nil))]
        )
    }

    static func systolic(_ value: Double, at date: Date) throws -> QuantitySample {
        try ManualReading.sample(
            type: .bloodPressureSystolic,
            value: value,
            unit: "mmHg",
            at: date,
            receivedAt: date.addingTimeInterval(60)
        )
    }

    /// 150 completes the event; 180 later in the same window and 185 outside every window were taken too.
    static func history() async throws -> (F, first: QuantitySample, late: QuantitySample, outside: QuantitySample) {
        let fixture = try F()
        try await fixture.store.addTask(bloodPressure())
        let first = try systolic(150, at: F.time(2026, 11, 20, 8))
        let late = try systolic(180, at: F.time(2026, 11, 20, 9))
        let outside = try systolic(185, at: F.time(2026, 11, 20, 18))
        for sample in [first, late, outside] {
            try await fixture.store.recordSample(sample, recordedAt: sample.start.addingTimeInterval(60))
        }
        return (fixture, first, late, outside)
    }

    @Test func aHighReadingAfterTheOneThatCompletedTheEventAlerts() async throws {
        let (fixture, first, late, outside) = try await Self.history()
        let events = try await fixture.store.events(
            matching: EventQuery(from: F.time(2026, 11, 20), to: F.time(2026, 11, 21))
        )
        // The aggregate still decides completion: the event holds the first reading only.
        #expect(events.count == 1 && events[0].outcome?.values.map(\.sampleID) == [first.id])
        try await AlertEngine.evaluate(store: fixture.store, from: F.time(2026, 11, 20), now: F.time(2026, 11, 21))
        let alerts = try await fixture.store.alerts()
        #expect(alerts.map(\.trip.samples) == [[late.id], [outside.id]])
        #expect(alerts.map(\.trip.value) == [180, 185])
        #expect(alerts.allSatisfy { $0.trip.ruleID == "high" && $0.trip.severity == .critical })
        // The one in the window names the event it fell in; the one outside every window names none.
        #expect(alerts[0].trip.events == [events[0].id] && alerts[1].trip.events.isEmpty)
    }

    @Test func aReadingOutsideEveryWindowIsJudgedByTheVersionInForce() async throws {
        let fixture = try F()
        var task = Self.bloodPressure()
        try await fixture.store.addTask(task)
        task.alerts = [AlertRule(id: "high", condition: .compare(.greaterThan, 190, unit: nil))]
        task.effectiveDate = F.time(2026, 11, 15)
        try await fixture.store.updateTask(task)
        for (day, value) in [(10, 185.0), (20, 185.0), (21, 195.0)] {
            let sample = try Self.systolic(value, at: F.time(2026, 11, day, 18))
            try await fixture.store.recordSample(sample, recordedAt: sample.start)
        }
        try await AlertEngine.evaluate(store: fixture.store, from: F.time(2026, 11, 1), now: F.time(2026, 11, 22))
        let alerts = try await fixture.store.alerts()
        #expect(alerts.map { "\($0.trip.day) v\($0.trip.taskVersionNumber)" } == ["2026-11-10 v1", "2026-11-21 v2"])
    }

    @Test func aDeletedReadingWithdrawsItsAlertAndAQuarantinedOneNeverAlerts() async throws {
        let (fixture, _, late, _) = try await Self.history()
        try await AlertEngine.evaluate(store: fixture.store, from: F.time(2026, 11, 20), now: F.time(2026, 11, 21))
        let alert = try #require(try await fixture.store.alerts().first { $0.trip.samples == [late.id] })
        try await fixture.store.deleteSample(id: late.id)
        let result = try await AlertEngine.evaluate(
            store: fixture.store,
            from: F.time(2026, 11, 20),
            now: F.time(2026, 11, 21)
        )
        #expect(result.withdrawn == [alert.id])
        var quarantined = try Self.systolic(200, at: F.time(2026, 11, 20, 20))
        quarantined.quarantineReason = "implausible"
        try await fixture.store.recordSample(quarantined, recordedAt: quarantined.start)
        let after = try await AlertEngine.evaluate(
            store: fixture.store,
            from: F.time(2026, 11, 20),
            now: F.time(2026, 11, 21)
        )
        #expect(after.raised.isEmpty)
    }

    @Test func insightsShowTheTrueRangeOfTheReadings() async throws {
        let (fixture, _, _, _) = try await Self.history()
        let report = try await InsightsBuilder.build(
            store: fixture.store,
            from: F.time(2026, 11, 20),
            to: F.time(2026, 11, 21)
        )
        let bp = try #require(report.tasks.first { $0.id == "bp" })
        #expect(bp.values?.min == 150 && bp.values?.max == 185 && bp.values?.count == 3)
        #expect(bp.values?.latest == 185)
        #expect(bp.completion.completed == 1 && bp.completion.total == 1)
        let day = try #require(bp.days.first)
        #expect(day.low == 150 && day.high == 185 && day.value.map { abs($0 - 515.0 / 3) < 1e-9 } == true)
    }

    @Test func theReportSummaryAndChartReachTheHighestReading() async throws {
        let (fixture, _, _, _) = try await Self.history()
        let report = try await ReportBuilder.build(
            store: fixture.store,
            from: F.time(2026, 11, 20),
            to: F.time(2026, 11, 21),
            generatedAt: F.time(2026, 11, 21)
        )
        #expect(report.summary.contains { $0.hasPrefix("Blood pressure:") && $0.contains("range 150–185") })
        let chart = try #require(report.charts.first { $0.title == "Blood pressure" })
        // The day's whisker runs from the lowest to the highest reading.
        let whiskers = chart.shapes.filter {
            if case .line(let x1, _, let x2, _, .blue, _) = $0 { return x1 == x2 }
            return false
        }
        #expect(whiskers.count == 1)
        let labels = chart.shapes.compactMap { shape -> Double? in
            if case .text(_, _, let text, _, .end, _, _) = shape { return Double(text) }
            return nil
        }
        #expect((labels.max() ?? 0) >= 185)
    }
}
