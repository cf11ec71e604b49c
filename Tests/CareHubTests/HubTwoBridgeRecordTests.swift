import BridgeCore
import CarePlan
import CareStore
import CareWeb
import Foundation
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

@testable import CareHub

/// Ann enrolled on two bridges (home-1, and home-2 where another patient had a weigh-in first, so Ann's is
/// `weigh@ann` there) with the same plan on both, as a plan from the hub gives it: the hub's record has each event
/// of her plan once, naming both bridges, done when either bridge recorded it done, and every outcome with the
/// bridge that recorded it. The rule against the bridges' own records: the hub's events are the first bridge's
/// (home-1's) own events, with the other bridge's copies of the same events (same task name, same window) added
/// to them and an event only the other bridge has added beside them.
@Suite(.serialized) struct HubTwoBridgeRecordTests {
    /// The two bridges, enrolled on the hub.
    struct Homes: Sendable {
        let hub: HubStore
        let one: CareRecordBridge
        let two: CareRecordBridge
        let enrolled: (one: HubBridge, two: HubBridge)

        /// Ann's record of `days` at the hub, after both bridges sent what they queued.
        func record(_ days: ClosedRange<String>) async throws -> CareRecordRows {
            try await one.send(to: hub, as: enrolled.one)
            try await two.send(to: hub, as: enrolled.two)
            return try await hub.recordRows(patient: CareRecordBridge.patient, days: days)
        }
    }

    let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory("carebridge-twobridges-")
    }

    func withHomes(_ body: @Sendable (Homes) async throws -> Void) async throws {
        let one = try await CareRecordBridge(scratch: scratch, name: "home-1")
        let two = try await CareRecordBridge(scratch: scratch, name: "home-2") { bridge in
            let text = """
                {"patient": {"id": "bed-2", "name": "Jürgen Weiß"},
                 "tasks": [{"id": "weigh", "title": "Weigh yourself", "kind": "assessment",
                   "schedule": {"timeZone": "Europe/Berlin", "elements": [
                     {"start": "2026-11-01T00:00:00", "interval": {"days": 1}, "duration": "allDay"}]},
                   "linkage": {"type": "bodyMass", "unit": "kg", "aggregation": "first"}}]}
                """
            let document = try CarePlanDocument.parse(
                Data(text.utf8),
                path: "bed-2.json",
                bridgeZone: CareRecordBridge.zone
            )
            _ = try await bridge.store.applyPlan(document, at: CareRecordBridge.now.addingTimeInterval(-40 * 86_400))
        }
        try await HubFixture.withStore(scratch: scratch) { hub in
            let enrolled = (try await one.enrol(on: hub), try await two.enrol(on: hub, others: ["bed-2"]))
            try await body(Homes(hub: hub, one: one, two: two, enrolled: enrolled))
        }
    }

    /// Both bridges get Ann's pill plan, as a plan put on the hub reaches each.
    static func pills(_ bridges: CareRecordBridge...) async throws {
        for bridge in bridges {
            try await bridge.applyPillPlan(
                from: "2026-11-20",
                at: CareRecordBridge.now.addingTimeInterval(-10 * 86_400)
            )
        }
    }

    /// Each event as `day HH:mm task state [bridges that hold it]`, its state at the suite's now with the bridges
    /// that recorded it done or not done (`done by home-1`).
    static func described(_ events: [CareRecordRows.Event]) -> [String] {
        events.map { event in
            let time = String(Timestamp.format(event.start, in: CareRecordBridge.zone).dropFirst(11).prefix(5))
            let state = event.state(at: CareRecordBridge.now)
            let by = event.bridges.filter { $0.isCompleted || $0.notDoneReason != nil }.map(\.bridge)
            let recorded = by.isEmpty ? "" : " by " + by.joined(separator: "+")
            let holders = event.bridges.map(\.bridge).joined(separator: ",")
            return "\(event.day) \(time) \(event.taskName) \(state.rawValue)\(recorded) [\(holders)]"
        }
    }

    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func theSamePlanOnTwoBridgesGivesEachEventOnceNamingBoth() async throws {
        try await withHomes { homes in
            try await Self.pills(homes.one, homes.two)
            let days = "2026-11-26"..."2026-11-27"
            let rows = try await homes.record(days)
            #expect(
                Self.described(rows.events) == [
                    "2026-11-26 00:00 weigh missed [home-1,home-2]", "2026-11-26 08:00 pill missed [home-1,home-2]",
                    "2026-11-26 20:00 pill missed [home-1,home-2]", "2026-11-27 00:00 weigh due [home-1,home-2]",
                    "2026-11-27 08:00 pill late [home-1,home-2]", "2026-11-27 20:00 pill due [home-1,home-2]",
                ]
            )
            let weigh = try #require(rows.events.first)
            #expect(weigh.bridges.map(\.taskID) == ["weigh", "weigh@ann"], "the same task under two keys")
            #expect(Set(weigh.bridges.map(\.taskVersion)).count == 2, "each bridge's own version")
            // The first bridge's own events, the other's copies added; the same windows on the other bridge.
            let one = try await homes.one.store.recordRows(patient: CareRecordBridge.patient, days: days)
            let two = try await homes.two.store.recordRows(patient: CareRecordBridge.patient, days: days)
            #expect(rows.events.map(CareRecordTests.withoutBridges) == one.events)
            #expect(rows.events.map(\.identity) == two.events.map(\.identity))
        }
    }

    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func anEventDoneOnOneBridgeIsDoneOnceAtTheHubNotAlsoMissedFromTheOther() async throws {
        try await withHomes { homes in
            try await Self.pills(homes.one, homes.two)
            try await homes.one.takePill(at: "2026-11-26T08:15")
            try await homes.two.record(.bodyMass, 69.5, "kg", at: "2026-11-26T07:30")
            let rows = try await homes.record("2026-11-26"..."2026-11-26")
            #expect(
                Self.described(rows.events) == [
                    "2026-11-26 00:00 weigh done by home-2 [home-1,home-2]",
                    "2026-11-26 08:00 pill done by home-1 [home-1,home-2]",
                    "2026-11-26 20:00 pill missed [home-1,home-2]",
                ]
            )
            #expect(rows.outcomes.map { "\($0.taskID) \($0.bridge ?? "?")" } == ["pill home-1", "weigh@ann home-2"])
        }
    }

    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func outcomesOnBothBridgesMakeOneEventAndBothOutcomesStay() async throws {
        try await withHomes { homes in
            try await homes.one.record(.bodyMass, 69.5, "kg", at: "2026-11-26T07:30")
            try await homes.two.record(.bodyMass, 69.8, "kg", at: "2026-11-26T19:00")
            let rows = try await homes.record("2026-11-26"..."2026-11-26")
            #expect(Self.described(rows.events) == ["2026-11-26 00:00 weigh done by home-1+home-2 [home-1,home-2]"])
            #expect(
                rows.outcomes.map { "\($0.taskID) \($0.values) \($0.bridge ?? "?")" } == [
                    "weigh [Optional(69.5)] home-1", "weigh@ann [Optional(69.8)] home-2",
                ]
            )
        }
    }

    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func aTaskEditedOnOneBridgeShowsBothBridgesEventsEachWithItsBridge() async throws {
        try await withHomes { homes in
            try await Self.pills(homes.one, homes.two)
            // On home-2 the morning pill moves to 09:00 from Wednesday 25 on; home-1 keeps 08:00.
            try await homes.two.applyPillPlan(
                from: "2026-11-20",
                at: CareRecordBridge.now.addingTimeInterval(-2 * 86_400),
                morning: "09:00"
            )
            try await homes.two.takePill(at: "2026-11-26T09:10")
            let rows = try await homes.record("2026-11-26"..."2026-11-26")
            #expect(
                Self.described(rows.events) == [
                    "2026-11-26 00:00 weigh missed [home-1,home-2]", "2026-11-26 08:00 pill missed [home-1]",
                    "2026-11-26 09:00 pill done by home-2 [home-2]", "2026-11-26 20:00 pill missed [home-1,home-2]",
                ]
            )
        }
    }

    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func aTaskOnOnlyOneBridgeIsShownOnceWithThatBridge() async throws {
        try await withHomes { homes in
            try await Self.pills(homes.one)
            try await homes.one.takePill(at: "2026-11-26T20:05")
            let rows = try await homes.record("2026-11-26"..."2026-11-26")
            #expect(
                Self.described(rows.events) == [
                    "2026-11-26 00:00 weigh missed [home-1,home-2]", "2026-11-26 08:00 pill missed [home-1]",
                    "2026-11-26 20:00 pill done by home-1 [home-1]",
                ]
            )
        }
    }

    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func theRecordPageNamesTheBridgesOfEachEventAndOutcomeInWords() async throws {
        try await withHomes { homes in
            try await homes.one.record(.bodyMass, 69.5, "kg", at: "2026-11-26T07:30")
            try await homes.two.record(.bodyMass, 69.8, "kg", at: "2026-11-26T19:00")
            _ = try await homes.record("2026-11-26"..."2026-11-26")
            let nurse = CareUser(id: "nurse", displayName: "Nurse Kim", role: .clinician, patientIDs: ["ann"])
            let hash = PasswordHasher(cost: 4).hash(HubFixture.dashboardPassword)
            try await homes.hub.addUser(nurse, passwordHash: hash, at: CareRecordBridge.now)
            let server = HubFixture.dashboardServer(homes.hub, zone: CareRecordBridge.zone, now: CareRecordBridge.now)
            try await Application(router: server.router()).test(.router) { client in
                let browser = Browser(client: client)
                try await browser.signIn("nurse")
                let text = try await browser.get("/overview/ann/record?day=2026-11-26").text
                let start = try #require(text.range(of: "<h2 id=\"events-heading\">Events</h2>"))
                let middle = try #require(text.range(of: "Recorded outcomes"))
                let events = text[start.upperBound..<middle.lowerBound]
                let outcomes = text[middle.upperBound...]
                #expect(events.contains(#"<th scope="col">Bridges</th>"#))
                #expect(events.components(separatedBy: "Weigh yourself").count == 2, "one row for the weigh-in")
                #expect(events.contains("<td>home-1, home-2</td><td class=\"\">done on home-1 and home-2</td>"))
                #expect(outcomes.contains(#"<th scope="col">Recorded on</th>"#))
                #expect(outcomes.contains("<td>home-1</td><td>done: 69.5</td>"))
                #expect(outcomes.contains("<td>home-2</td><td>done: 69.8</td>"))
            }
        }
    }
}
