import BridgeCore
import CarePlan
import CareStore
import Foundation
import GRDB
import Insights
import Logging
import Synchronization
import Testing

@testable import CareReport

/// The report's insights and the alert evaluation before it read a period's linked readings page by page, never
/// all at once (issue #31 item 8: `report` held ≈450 B per sample, 479 MB for a million).
@Suite struct LinkedReadingsPagingTests {
    typealias F = AlertFixture

    /// The LIMIT of every sample page statement a store runs.
    final class PageLimits: Sendable {
        private let limits = Mutex<[Int]>([])
        var values: [Int] { limits.withLock { $0 } }
        func add(_ sql: String) {
            guard sql.contains("UNION ALL") || sql.contains("FROM sample"),
                let range = sql.range(of: #"LIMIT (\d+)\s*$"#, options: .regularExpression),
                let limit = Int(sql[range].dropFirst(6).trimmingCharacters(in: .whitespaces))
            else { return }
            limits.withLock { $0.append(limit) }
        }
        func reset() { limits.withLock { $0 = [] } }
    }

    @Test func insightsAlertsAndTheReportReadLinkedReadingsInPages() async throws {
        let limits = PageLimits()
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            db.trace(options: .statement) { event in
                if case .statement(let statement) = event { limits.add(statement.expandedSQL) }
            }
        }
        let store = try CareStore(
            writer: try DatabaseQueue(configuration: configuration),
            bridgeZone: F.berlin,
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        )
        try await store.addTask(
            CareTask(
                id: "pulse",
                title: "Pulse",
                kind: .assessment,
                schedule: F.daily(),
                linkage: SampleLinkage(type: .heartRate, unit: .perMinute, aggregation: .mean),
                alerts: [AlertRule(id: "fast", condition: .compare(.greaterThan, 150, unit: nil))]
            ),
            at: F.time(2026, 10, 1)
        )
        // 12,000 heart rates of a strap over 11-18 (one every 5 s), one of them too fast.
        let start = F.time(2026, 11, 18, 6)
        var samples: [QuantitySample] = []
        for index in 0..<12_000 {
            let value: Double = index == 7_000 ? 170 : Double(60 + index % 30)
            let at = start.addingTimeInterval(Double(index) * 5)
            samples.append(
                ReportReadingsTests.reading(.heartRate, value, .perMinute, at: at, from: ReportReadingsTests.strap)
            )
        }
        try await store.recordSamples(samples)

        limits.reset()
        try await AlertEngine.evaluate(store: store, from: F.time(2026, 11, 16), now: F.time(2026, 11, 23))
        #expect(try await store.alerts().map(\.trip.value) == [170])
        #expect(limits.values.count >= 3 && limits.values.allSatisfy { $0 <= 5_000 }, "\(limits.values)")

        limits.reset()
        let insights = try await InsightsBuilder.build(
            store: store,
            from: F.time(2026, 11, 16),
            to: F.time(2026, 11, 23)
        )
        let pulse = try #require(insights.tasks.first { $0.id == "pulse" })
        #expect(pulse.values?.count == 12_000 && pulse.values?.max == 170 && pulse.values?.min == 60)
        #expect(limits.values.count >= 3 && limits.values.allSatisfy { $0 <= 5_000 }, "\(limits.values)")

        limits.reset()
        let report = try await ReportBuilder.build(
            store: store,
            from: F.time(2026, 11, 16),
            to: F.time(2026, 11, 23),
            generatedAt: F.time(2026, 11, 23)
        )
        #expect(report.summary.contains { $0.hasPrefix("Pulse:") && $0.contains("range 60–170") })
        #expect(limits.values.count >= 6 && limits.values.allSatisfy { $0 <= 5_000 }, "\(limits.values)")
    }
}
