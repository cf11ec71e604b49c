import BridgeCore
import CareStore
import CareWeb
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import TestSupport
import Testing

@testable import CareHub

/// A patient's pages on the hub's dashboard, in process over a real PostgreSQL and fed by a bridge's own hub
/// channel (``CareRecordBridge``): the day's readings with their marks and the quarantined ones apart, the day's
/// outcomes, and an alert acknowledged on the hub that comes down to the bridge, which keeps its own withdrawal.
@Suite(.serialized) struct HubPatientRecordTests {
    let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory("carebridge-hubrecord-")
    }

    /// Runs `body` with the bridge, its enrolment and a browser on the hub's dashboard (a nurse linked to Ann).
    func withDashboard(
        _ body: @escaping @Sendable (CareRecordBridge, HubStore, HubBridge, Browser) async throws -> Void
    ) async throws {
        let bridge = try await CareRecordBridge(scratch: scratch)
        try await HubFixture.withStore(scratch: scratch) { hub in
            let enrolled = try await bridge.enrol(on: hub)
            let nurse = CareUser(id: "nurse", displayName: "Nurse Kim", role: .clinician, patientIDs: ["ann"])
            let hash = PasswordHasher(cost: 4).hash(HubFixture.dashboardPassword)
            try await hub.addUser(nurse, passwordHash: hash, at: CareRecordBridge.now)
            let server = HubFixture.dashboardServer(hub, zone: CareRecordBridge.zone, now: CareRecordBridge.now)
            try await Application(router: server.router()).test(.router) { client in
                let browser = Browser(client: client)
                try await browser.signIn("nurse")
                try await body(bridge, hub, enrolled, browser)
            }
        }
    }

    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func aNurseReadsADayWithFlaggedAndOutOfRangeReadingsMarkedAndQuarantinedOnesApart() async throws {
        try await withDashboard { bridge, hub, enrolled, browser in
            try await bridge.record(
                .bloodPressureSystolic,
                128,
                "mm[Hg]",
                at: "2026-11-27T07:00",
                source: .device,
                metadata: ["measurementStatus": "body movement detected"]
            )
            try await bridge.record(.bloodGlucose, 1.1, "mmol/L", at: "2026-11-27T07:10", comparator: .lessThan)
            try await bridge.record(
                .bodyMass,
                250,
                "kg",
                at: "2026-11-27T07:30",
                source: .device,
                quarantine: "250 kg is not plausible"
            )
            try await bridge.record(.bodyMass, 71.5, "kg", at: "2026-11-27T08:00")
            try await bridge.record(.bodyMass, 70.9, "kg", at: "2026-11-26T08:00")
            try await bridge.send(to: hub, as: enrolled)

            let summary = try await browser.get("/overview/ann")
            #expect(summary.status == .ok)
            #expect(summary.text.contains(#"href="/overview/ann/record""#), "the way to the record")
            let page = try await browser.get("/overview/ann/record?day=2026-11-27")
            #expect(page.status == .ok)
            let text = page.text
            #expect(text.contains("Friday 27 November 2026"))
            let held = try #require(text.range(of: "Held in quarantine"))
            let usable = text[..<held.lowerBound]
            let apart = text[held.lowerBound...]
            #expect(usable.contains("Device says: body movement detected."))
            #expect(usable.contains("&lt; 1.1 mmol/L (LO)"), "the meter's limit, not a plain value")
            #expect(usable.contains("71.5 kg") && !usable.contains("250"))
            #expect(!usable.contains("70.9 kg"), "the 26th's reading is on the 26th")
            #expect(apart.contains("[250 kg] quarantined") && apart.contains("250 kg is not plausible"))
            #expect(apart.contains("weigh") && apart.contains("done: 71.5"), "the day's outcome")
            #expect(!text.contains("Release or delete"), "decided on where it is held")
            let before = try await browser.get("/overview/ann/record?day=2026-11-26")
            #expect(before.text.contains("70.9 kg") && before.text.contains("?day=2026-11-27"))
            #expect(try await browser.get("/overview/ann/record?day=27.11.2026").status == .badRequest)
        }
    }

    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func aNurseSeesTheDaysEventsDoneMissedAndNotYetDueFromTheBridgesTaskVersions() async throws {
        try await withDashboard { bridge, hub, enrolled, browser in
            try await bridge.applyPillPlan(
                from: "2026-11-20",
                at: CareRecordBridge.now.addingTimeInterval(-10 * 86_400)
            )
            try await bridge.takePill(at: "2026-11-26T08:15")
            try await bridge.send(to: hub, as: enrolled)
            let events = { (day: String) async throws -> Substring in
                let text = try await browser.get("/overview/ann/record?day=\(day)").text
                let start = try #require(text.range(of: "<h2 id=\"events-heading\">Events</h2>"))
                let end = try #require(text.range(of: "Recorded outcomes"))
                return text[start.upperBound..<end.lowerBound]
            }
            let thursday = try await events("2026-11-26")
            #expect(thursday.contains("<td>08:00–09:00</td><th scope=\"row\">Take the pill</th>"))
            #expect(
                thursday.contains(#"<td class="">done</td>"#) && thursday.contains(#"<td class="missed">missed</td>"#)
            )
            #expect(thursday.contains("all day"), "the weigh-in, not done that day")
            let friday = try await events("2026-11-27")
            #expect(friday.contains(">late<") && friday.contains(">not yet due<") && !friday.contains(">missed<"))
        }
    }

    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func anAlertAcknowledgedOnTheHubComesDownAndTheBridgesWithdrawalStands() async throws {
        try await withDashboard { bridge, hub, enrolled, browser in
            let now = CareRecordBridge.now
            try await bridge.raise(
                subjects: [("a", now.addingTimeInterval(-7200)), ("b", now.addingTimeInterval(-3600))],
                now: now
            )
            try await bridge.send(to: hub, as: enrolled)
            let alerts = try await bridge.store.alerts()
            let a = try #require(alerts.first { $0.trip.subject == "a" })
            let b = try #require(alerts.first { $0.trip.subject == "b" })
            let page = try await browser.get("/overview/ann")
            #expect(page.text.contains(#"value="home-1/\#(a.id)""#) && page.text.contains(#"value="home-1/\#(b.id)""#))
            let csrf = try #require(page.csrf)
            for alert in [a, b] {
                let done = try await browser.post(
                    "/overview/ann/acknowledge",
                    ["csrf": csrf, "alert": "home-1/\(alert.id)"]
                )
                #expect(done.status == .seeOther && done.location == "/overview/ann?acknowledged=1")
            }
            #expect(
                try await browser.post("/overview/ann/acknowledge", ["alert": "home-1/\(a.id)"]).status == .forbidden
            )
            let unknown = try await browser.post("/overview/ann/acknowledge", ["csrf": csrf, "alert": "home-1/999"])
            #expect(unknown.status == .conflict && unknown.text.contains("has sent no alert 999"))
            // Until the bridge answers, the page says the acknowledgements wait for it, with when they were sent.
            let waiting = try await browser.get("/overview/ann").text
            #expect(
                waiting.components(
                    separatedBy: "Acknowledgement sent to the bridge at Fri 27 Nov 2026 09:30, waiting for its answer."
                ).count == 3,
                "\(waiting)"
            )
            #expect(!waiting.contains(#"value="home-1/\#(a.id)""#), "no second Acknowledge")

            // b's facts are gone on the bridge before the acknowledgements arrive: it withdraws b.
            try await bridge.raise(subjects: [("a", now.addingTimeInterval(-7200))], now: now.addingTimeInterval(60))
            let receipt = try await hub.receive(SyncBatch(messages: [], changesAfter: 0), from: enrolled)
            #expect(receipt.changes.map(\.kind) == [.acknowledgement, .acknowledgement])
            var refusals: [String?] = []
            for change in receipt.changes { refusals.append(await bridge.channel.apply(change)?.refusal) }
            #expect(refusals.first == .some(nil), "a is acknowledged")
            #expect(refusals.last??.contains("the withdrawal stands") == true, "\(refusals)")
            #expect(try await bridge.store.alert(id: a.id)?.acknowledgedBy == "nurse")
            let kept = try #require(try await bridge.store.alert(id: b.id))
            #expect(kept.withdrawnAt != nil && kept.acknowledgedAt == nil)

            // Once the hub has heard of both, a stays closed and b cannot be acknowledged there any more.
            try await bridge.send(to: hub, as: enrolled)
            let after = try await browser.get("/overview/ann")
            #expect(after.text.contains("No open alerts."), "\(after.text)")
            let again = try await browser.post("/overview/ann/acknowledge", ["csrf": csrf, "alert": "home-1/\(b.id)"])
            #expect(again.status == .conflict && again.text.contains("was withdrawn by the bridge"))
        }
    }
}
