import BridgeCore
import CarePlan
import CareStore
import CareWeb
import Foundation
import HTTPTypes
import TestSupport
import Testing

/// Each user reads times in their own zone: a daughter in New York following her mother's Berlin plan sees the
/// dose windows in New York time with Berlin's beside them, on the plan's own day (the day never moves with the
/// reader), across the week the two zones leave summer time on different dates; the settings form that sets the
/// zone is CSRF-protected and refuses a name that is no zone; the JSON keeps instants.
@Suite struct UserTimeZoneScreensTests {
    static let newYork = TimeZone(identifier: "America/New_York")!

    /// Anna's plan with a 03:00 night dose (21:00 the evening before in New York) and a walk from 29 October
    /// (Berlin is back on CET from 25 October, New York on EDT until 1 November).
    static func addNightDoseAndWalk(_ fixture: CareAppFixture) async throws {
        let extra = """
            , {"id": "night-anna", "title": "Night dose", "kind": "intervention",
               "schedule": {"timeZone": "Europe/Berlin", "elements": [
                 {"start": "2026-11-01T03:00:00", "interval": {"days": 1}, "duration": 1800}]}},
              {"id": "walk-anna", "title": "Walk", "kind": "intervention",
               "schedule": {"timeZone": "Europe/Berlin", "elements": [
                 {"start": "2026-10-29T08:00:00", "interval": {"days": 1}, "duration": 7200}]}}
            """
        let text = CareAppFixture.plan("anna", extraTasks: extra)
        let document = try CarePlanDocument.parse(Data(text.utf8), path: "anna.json", bridgeZone: CareAppFixture.zone)
        _ = try await fixture.store.applyPlan(document, at: CareAppFixture.start.addingTimeInterval(-30 * 86400 + 3600))
    }

    @Test func aNewYorkReaderSeesBerlinDosesInNewYorkTimeOnThePlansDay() async throws {
        let fixture = try await CareAppFixture()
        try await Self.addNightDoseAndWalk(fixture)
        try await PatientScreensTests.heavyReading(fixture)
        try await fixture.store.setTimeZone(userID: "nurse", Self.newYork)
        try await fixture.test { browser in
            try await browser.signIn("nurse")
            let page = try await browser.get("/patients/anna/today")
            #expect(page.text.contains("Friday 27 November 2026"), "the plan's day, not New York's")
            #expect(page.text.contains("02:00–04:00 New York time (08:00–10:00 Berlin time)"), "\(page.text)")
            #expect(
                page.text.contains("Thu 26 Nov 2026 21:00–21:30 New York time (03:00–03:30 Berlin time)"),
                "the night dose is on Friday's plan, the evening before in New York"
            )
            #expect(page.text.contains("72.5 kg measured at 02:30 New York time"))
            #expect(
                page.text.contains(
                    "Times are in New York time (America/New_York, GMT-5), your zone. "
                        + "The day is Anna Weber&#39;s plan day in Europe/Berlin, GMT+1."
                ),
                "\(page.text)"
            )
            let done = try await TodayPageTests.record(
                browser,
                page,
                task: "tablet-anna",
                occurrence: 26,
                day: "2026-11-27",
                action: "done"
            )
            #expect(done.status == .seeOther)
            let after = try await browser.get("/patients/anna/today")
            #expect(after.text.contains("Done at 03:30 New York time by nurse"), "09:30 in Berlin")
            // The same instants for the API whoever asks: ISO-8601 with their offset.
            let api = try await browser.get("/api/patients/anna/today")
            #expect(api.text.contains(#""day":"2026-11-27""#))
            #expect(api.text.contains(#""start":"2026-11-27T07:00:00Z""#), "\(api.text)")
        }
        // Anna keeps the bridge's zone: the plan's times, no zone named.
        try await fixture.test { browser in
            try await browser.signIn("anna")
            let page = try await browser.get("/patients/anna/today")
            #expect(page.text.contains("<span class=\"when\">08:00–10:00</span>"))
            #expect(page.text.contains("Done at 09:30 by nurse"))
            #expect(!page.text.contains("Times are in"))
        }
    }

    @Test func theWeekTheZonesChangeAtDifferentDatesShowsEachDaysOwnOffset() async throws {
        let fixture = try await CareAppFixture()
        try await Self.addNightDoseAndWalk(fixture)
        try await fixture.store.setTimeZone(userID: "nurse", Self.newYork)
        try await fixture.test { browser in
            try await browser.signIn("nurse")
            // 30 October: Berlin on CET (+1), New York still on EDT (−4): five hours apart.
            let friday = try await browser.get("/patients/anna/today?day=2026-10-30")
            #expect(friday.text.contains("Friday 30 October 2026"))
            #expect(friday.text.contains("03:00–05:00 New York time (08:00–10:00 Berlin time)"), "\(friday.text)")
            #expect(friday.text.contains("America/New_York, GMT-4"))
            // 2 November: New York on EST (−5): six hours apart again.
            let monday = try await browser.get("/patients/anna/today?day=2026-11-02")
            #expect(monday.text.contains("Monday 2 November 2026"))
            #expect(monday.text.contains("02:00–04:00 New York time (08:00–10:00 Berlin time)"), "\(monday.text)")
            #expect(monday.text.contains("America/New_York, GMT-5"))
        }
    }

    @Test func readingsAlertsDevicesAndThePatientListReadInTheUsersZone() async throws {
        let fixture = try await CareAppFixture()
        try await PatientScreensTests.heavyReading(fixture)
        try await fixture.store.setTimeZone(userID: "nurse", Self.newYork)
        try await fixture.test { browser in
            try await browser.signIn("nurse")
            let insights = try await browser.get("/patients/anna/insights")
            #expect(insights.text.contains("Friday 27 November 2026 02:30 New York time"), "\(insights.text)")
            let readings = try await browser.get("/patients/anna/readings")
            #expect(readings.text.contains("Fri 27 Nov 2026 02:30 New York time"), "\(readings.text)")
            #expect(readings.text.contains("Measured at (New York time)"))
            #expect(readings.text.contains(#"value="2026-11-27T03:30""#), "now, as New York reads it")
            let list = try await browser.get("/patients")
            #expect(list.text.contains("Weigh yourself 72.5 kg (Fri 27 Nov 2026 02:30 New York time)"), "\(list.text)")
            // A reading typed in at 21:00 in New York is 03:00 the next morning in Berlin: that plan day's.
            let typed = try await browser.post(
                "/patients/anna/readings",
                ["csrf": readings.csrf ?? "", "type": "bodyMass", "reading": "71.9 kg", "at": "2026-11-26T21:00"]
            )
            #expect(typed.status == .seeOther, "\(typed.text)")
            #expect(
                typed.location?.hasPrefix("/patients/anna/readings?from=2026-11-27&") == true,
                "\(typed.location ?? "")"
            )
        }
        let typed = try await fixture.store.scoped(to: "anna").samples(
            matching: SampleQuery(from: .distantPast, to: .distantFuture)
        ).first { $0.sample.value == 71.9 }
        #expect(typed?.sample.start == Date(timeIntervalSince1970: 1_795_744_800), "2026-11-27T02:00:00Z")
    }

    @Test func theSettingsFormSetsTheZoneOnlyWithItsTokenAndRefusesANameThatIsNoZone() async throws {
        let fixture = try await CareAppFixture()
        try await fixture.test { browser in
            try await browser.signIn("anna")
            let settings = try await browser.get("/settings")
            #expect(settings.status == .ok)
            #expect(settings.text.contains(#"<label for="zone">Show times in</label>"#))
            #expect(settings.text.contains(#"<option value="" selected>The bridge's zone (Europe/Berlin)</option>"#))
            #expect(settings.text.contains(#"<option value="America/New_York">America/New_York</option>"#))
            #expect(
                settings.text.contains("data-zone-suggest hidden"),
                "the browser's zone: offered by the script only"
            )

            let forged = try await browser.post("/settings", ["zone": "America/New_York"])
            #expect(forged.status == .forbidden)
            let unknown = try await browser.post("/settings", ["csrf": settings.csrf ?? "", "zone": "Mars/Base"])
            #expect(unknown.status == .unprocessableContent)
            #expect(
                unknown.text.contains("Unknown time zone &#39;Mars/Base&#39;: use an IANA name such as Europe/Berlin"),
                "\(unknown.text)"
            )
            #expect(try await fixture.store.users().first { $0.id == "anna" }?.timeZone == nil)

            let saved = try await browser.post("/settings", ["csrf": settings.csrf ?? "", "zone": "America/New_York"])
            #expect(saved.status == .seeOther && saved.location == "/settings?saved=1")
            let shown = try await browser.get("/settings?saved=1")
            #expect(shown.text.contains("Saved: times are now shown in America/New_York."))
            #expect(shown.text.contains(#"<option value="America/New_York" selected>America/New_York</option>"#))
            #expect(try await fixture.store.users().first { $0.id == "anna" }?.timeZone == Self.newYork)
            let today = try await browser.get("/patients/anna/today")
            #expect(today.text.contains("02:00–04:00 New York time (08:00–10:00 Berlin time)"))

            let back = try await browser.post("/settings", ["csrf": settings.csrf ?? "", "zone": ""])
            #expect(back.status == .seeOther)
            #expect(try await fixture.store.users().first { $0.id == "anna" }?.timeZone == nil)
        }
    }
}
