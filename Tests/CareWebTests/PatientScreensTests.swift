import BridgeCore
import CarePlan
import CareStore
import Foundation
import HTTPTypes
import Logging
import TestSupport
import Testing

/// Insights, Connect and the report through the app.
@Suite struct PatientScreensTests {
    /// Anna weighs 72.5 kg this morning (Bob 80.5 kg: the same reading for both would be one sample, its id
    /// derived from what it says): their 70 kg rule raises an alert.
    static func heavyReading(_ fixture: CareAppFixture, patient: String = "anna") async throws {
        try await fixture.store.scoped(to: patient).recordSample(
            QuantitySample(
                type: .bodyMass,
                value: patient == "anna" ? 72.5 : 80.5,
                unit: HealthUnit(rawValue: "kg"),
                start: CareAppFixture.start.addingTimeInterval(-3600),
                source: SampleSource(kind: .manual)
            )
        )
    }

    @Test func insightsListsOpenAlertsAndAcknowledgingRecordsWho() async throws {
        let fixture = try await CareAppFixture()
        try await Self.heavyReading(fixture)
        try await Self.heavyReading(fixture, patient: "bob")
        try await fixture.test { browser in
            try await browser.signIn("nurse")
            let page = try await browser.get("/patients/anna/insights")
            #expect(page.status == .ok)
            #expect(page.text.contains("<strong>Warning</strong>:"), "\(page.text)")
            #expect(page.text.contains("<svg"), "the week's charts")
            let action = try #require(
                page.text.range(of: #"/patients/anna/alerts/(\d+)/acknowledge"#, options: .regularExpression)
            )
            let path = String(page.text[action])
            let acknowledged = try await browser.post(path, ["csrf": page.csrf ?? ""])
            #expect(acknowledged.status == .seeOther)
            #expect(try await browser.get("/patients/anna/insights").text.contains("No open alerts."))
            // Bob's alert (raised when his page is looked at) cannot be acknowledged through Anna's page.
            #expect(try await browser.get("/patients/bob/insights").text.contains("<strong>Warning</strong>:"))
            let bobs = try await fixture.store.scoped(to: "bob").alerts(includeClosed: false)
            let bobID = try #require(bobs.first?.id)
            let crossed = try await browser.post(
                "/patients/anna/alerts/\(bobID)/acknowledge",
                ["csrf": page.csrf ?? ""]
            )
            #expect(crossed.status == .notFound)
        }
        let closed = try await fixture.store.scoped(to: "anna").alerts()
        #expect(closed.first?.acknowledgedBy == "nurse")
        #expect(try await fixture.store.scoped(to: "bob").alerts(includeClosed: false).count == 1)
    }

    @Test func connectLinksTheCareTeamToCallMailAndMap() async throws {
        let fixture = try await CareAppFixture()
        try await fixture.test { browser in
            try await browser.signIn("anna")
            let page = try await browser.get("/patients/anna/connect")
            #expect(page.text.contains(#"<a href="tel:+49301234567">Call +49 30 1234-567</a>"#), "\(page.text)")
            #expect(page.text.contains(#"<a href="mailto:gray@example.org">"#))
            #expect(page.text.contains("openstreetmap.org/search?query=Hauptstra%C3%9Fe%201%2C%20Berlin"))
            #expect(page.text.contains("Receives: reports and alerts"))
        }
    }

    /// "Share this week's report" records in the sharing audit what the app did (a download prepared by the
    /// user for that contact), then offers the PDF; only a contact of the patient who receives reports qualifies.
    @Test func sharingTheWeeksReportIsRecordedAsADownloadByItsUser() async throws {
        let fixture = try await CareAppFixture()
        try await fixture.test { browser in
            try await browser.signIn("anna")
            let page = try await browser.get("/patients/anna/connect")
            #expect(page.text.contains("Share this week's report<span class=\"visually-hidden\"> with Dr. Gray"))
            let csrf = page.csrf ?? ""
            #expect(try await browser.post("/patients/anna/connect/share", ["contact": "anna-gp"]).status == .forbidden)
            #expect(
                try await browser.post("/patients/anna/connect/share", ["csrf": csrf, "contact": "bob-gp"]).status
                    == .badRequest,
                "another patient's contact"
            )
            #expect(try await fixture.store.shares().isEmpty, "a refused share records nothing")
            let shared = try await browser.post("/patients/anna/connect/share", ["csrf": csrf, "contact": "anna-gp"])
            #expect(shared.status == .seeOther)
            #expect(shared.location == "/patients/anna/connect?shared=anna%2Dgp&from=2026-11-21")
            let after = try await browser.get(shared.location ?? "")
            #expect(after.text.contains("recorded as shared with Dr. Gray"), "\(after.text)")
            #expect(after.text.contains(#"<a href="/patients/anna/report?from=2026-11-21">"#))
            #expect(after.text.contains("report 2026-11-21 to 2026-11-27, prepared in the care app by anna (download,"))
            let entries = try await fixture.store.shares()
            #expect(entries.map(\.contactID) == ["anna-gp"] && entries.map(\.patientID) == ["anna"])
            #expect(entries.first?.channel == "download" && entries.first?.what == "report")
        }
    }

    @Test func theReportIsAPDFOrHTMLOfThePatientsWeek() async throws {
        let fixture = try await CareAppFixture()
        try await Self.heavyReading(fixture)
        try await fixture.test { browser in
            try await browser.signIn("anna")
            let pdf = try await browser.get("/patients/anna/report")
            #expect(pdf.status == .ok && pdf.headers[.contentType] == "application/pdf")
            #expect(pdf.text.hasPrefix("%PDF-"))
            let html = try await browser.get("/patients/anna/report?format=html&from=2026-11-20&to=2026-11-27")
            #expect(html.text.contains("Anna Weber") && !html.text.contains("Bob Weber"))
            #expect(html.text.contains("72.5"))
            #expect(try await browser.get("/patients/bob/report").status == .forbidden)
            #expect(try await browser.get("/patients/anna/report?from=2026-11-30&to=2026-11-20").status == .badRequest)
        }
    }

    @Test func thePatientListPutsOpenAlertsFirstWithEachVitalsLastValueAndTrend() async throws {
        let fixture = try await CareAppFixture()
        // Bob: 79 kg yesterday, 80.5 kg today (rising, and above his 70 kg rule).
        try await fixture.store.scoped(to: "bob").recordSample(
            QuantitySample(
                type: .bodyMass,
                value: 79,
                unit: HealthUnit(rawValue: "kg"),
                start: CareAppFixture.start.addingTimeInterval(-86400),
                source: SampleSource(kind: .manual)
            )
        )
        try await Self.heavyReading(fixture, patient: "bob")
        try await fixture.test { browser in
            try await browser.signIn("nurse")
            _ = try await browser.get("/patients/bob/insights")
            let list = try await browser.get("/patients")
            let bob = try #require(list.text.range(of: "Bob Weber"))
            let anna = try #require(list.text.range(of: "Anna Weber"))
            #expect(bob.lowerBound < anna.lowerBound, "Bob has an open alert: first")
            #expect(list.text.contains("<tr class=\"urgent\">"))
            #expect(list.text.contains("Weigh yourself 80.5 kg, rising"), "\(list.text)")
        }
    }

    @Test func thePatientListFollowsAnotherProcessesWriteAndTheClockWithoutAStaleRow() async throws {
        let fixture = try await CareAppFixture()
        try await fixture.test { browser in
            try await browser.signIn("nurse")
            let before = try await browser.get("/patients")
            #expect(!before.text.contains("<tr class=\"urgent\">") && !before.text.contains("<tr class=\"late\">"))
            #expect(!before.text.contains("80.5 kg"))
            // Another process (a replay, the daemon) writes through its own connection: the next list shows it.
            let other = try CareStore(
                path: fixture.scratch.path("store.sqlite"),
                bridgeZone: CareAppFixture.zone,
                logger: Logger(label: "other")
            )
            try await other.scoped(to: "bob").recordSample(
                QuantitySample(
                    type: .bodyMass,
                    value: 80.5,
                    unit: HealthUnit(rawValue: "kg"),
                    start: CareAppFixture.start.addingTimeInterval(-3600),
                    source: SampleSource(kind: .manual)
                )
            )
            let after = try await browser.get("/patients")
            #expect(after.text.contains("Weigh yourself 80.5 kg"), "\(after.text)")
            // Nothing written, but the tablet's 08:00–10:00 window has passed: Anna's row is late now.
            // (in two steps, each inside the session's 30 idle minutes; 09:30 → 10:10).
            fixture.advance(by: 1200)
            let stillOnTime = try await browser.get("/patients")
            #expect(stillOnTime.status == .ok && !stillOnTime.text.contains("<tr class=\"late\">"))
            fixture.advance(by: 1200)
            let later = try await browser.get("/patients")
            let anna = try #require(later.text.range(of: "Anna Weber"))
            let row = try #require(
                later.text.range(of: "<tr", options: .backwards, range: later.text.startIndex..<anna.lowerBound)
            )
            #expect(later.text[row.lowerBound...].hasPrefix("<tr class=\"late\">"), "\(later.text)")
        }
        // The admin's list (every patient) was read from the same shared reads; a patient still sees only herself.
        try await fixture.test { browser in
            try await browser.signIn("anna")
            let list = try await browser.get("/patients")
            #expect(list.text.contains("Anna Weber") && !list.text.contains("Bob Weber"))
        }
    }
}
