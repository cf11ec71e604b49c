import BridgeCore
import CareReport
import CareStore
import Foundation
import Insights
import Testing

/// The care report's alert list as a clinician reads it: open critical alerts first, handled ones after, and
/// withdrawn alerts (their reading deleted or corrected) out of the main list, in a table of their own.
@Suite struct CareReportAlertsTests {
    typealias F = AlertFixture
    typealias Readings = EveryReadingThresholdTests

    @Test func openCriticalAlertsComeFirstAndWithdrawnOnesHaveTheirOwnTable() async throws {
        let (fixture, _, late, outside) = try await Readings.history()
        try await AlertEngine.evaluate(store: fixture.store, from: F.time(2026, 11, 20), now: F.time(2026, 11, 21))
        let alerts = try await fixture.store.alerts()
        // The earliest alert's reading is deleted (withdrawn); the second is acknowledged; a third stays open.
        let handled = try #require(alerts.first { $0.trip.samples == [outside.id] })
        try await fixture.store.acknowledgeAlert(id: handled.id, by: "nurse Kim", at: F.time(2026, 11, 20, 19))
        try await fixture.store.deleteSample(id: late.id)
        let higher = try Readings.systolic(195, at: F.time(2026, 11, 20, 21))
        try await fixture.store.recordSample(higher, recordedAt: higher.start)
        try await AlertEngine.evaluate(store: fixture.store, from: F.time(2026, 11, 20), now: F.time(2026, 11, 21))

        let report = try await ReportBuilder.build(
            store: fixture.store,
            from: F.time(2026, 11, 16),
            to: F.time(2026, 11, 23),
            generatedAt: F.time(2026, 11, 23, 12)
        )
        let main = try #require(report.tables.first { $0.title == "Alerts" })
        #expect(main.rows.map { $0[0] } == ["2026-11-20 21:00", "2026-11-20 18:00"])
        #expect(main.rows[0][4] == "open" && main.rows[1][4].hasSuffix("by nurse Kim"))
        #expect(main.marked == [[0, 1]])
        let withdrawn = try #require(report.tables.first { $0.title == "Withdrawn alerts" })
        #expect(withdrawn.rows.count == 1 && withdrawn.rows[0][0] == "2026-11-20 09:00")
        #expect(!withdrawn.rows[0][4].isEmpty, "the reason is given")
    }
}
