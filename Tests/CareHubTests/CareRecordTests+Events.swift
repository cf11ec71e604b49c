import BridgeCore
import CareHub
import CareStore
import Foundation
import TestSupport
import Testing

/// The events of a patient's day, done or not, over both engines: the hub computes them from the task versions
/// the bridge sent, with the bridge's own rules, and must answer what the bridge's store answers.
extension CareRecordTests {
    /// Each event as `day HH:mm task vN state` (Berlin time; N: the version's number on the bridge), with its state
    /// at the suite's now.
    static func described(_ events: [CareRecordRows.Event], versions: [String: Int]) -> [String] {
        events.map { event in
            let time = String(Timestamp.format(event.start, in: CareRecordBridge.zone).dropFirst(11).prefix(5))
            let state = event.state(at: CareRecordBridge.now)
            return "\(event.day) \(time) \(event.taskName) v\(versions[event.taskVersion] ?? 0) \(state.rawValue)"
        }
    }

    /// The version numbers of Ann's tasks by version id, as the bridge holds them.
    static func versionNumbers(_ bridge: CareRecordBridge) async throws -> [String: Int] {
        var numbers: [String: Int] = [:]
        for task in ["weigh", "pill"] {
            for version in try await bridge.store.scoped(to: CareRecordBridge.patient).taskVersions(id: task) {
                numbers[version.version.uuidString.lowercased()] = version.versionNumber
            }
        }
        return numbers
    }

    /// The engine's record of `days`, and (on the hub) that it holds the very events the bridge's store gives.
    /// The rule for one bridge: the hub's events are the bridge's own, each naming that bridge as the one that
    /// holds it (`HubTwoBridgeRecordTests` has the rule for two).
    static func events(_ session: Session, _ days: ClosedRange<String>) async throws -> [CareRecordRows.Event] {
        let rows = try await session.record(days)
        if session.hub != nil {
            let own = try await session.bridge.store.recordRows(patient: CareRecordBridge.patient, days: days)
            let unnamed = own.events.allSatisfy(\.bridges.isEmpty)
            let named = rows.events.allSatisfy { $0.bridges.map(\.bridge) == [session.bridge.name] }
            #expect(unnamed, "a bridge's own record names no bridge")
            #expect(named, "each of the hub's events names the one bridge")
            #expect(rows.events.map(Self.withoutBridges) == own.events, "the hub's events are the bridge's")
        }
        return rows.events
    }

    /// The event without the bridges that hold it, as a bridge's own store has it.
    static func withoutBridges(_ event: CareRecordRows.Event) -> CareRecordRows.Event {
        var event = event
        event.bridges = []
        return event
    }

    @Test(
        .enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"),
        arguments: Engine.allCases
    )
    func aDayShowsItsEventsDoneMissedLateAndNotYetDue(engine: Engine) async throws {
        try await withSession(engine) { session in
            let bridge = session.bridge
            try await bridge.applyPillPlan(
                from: "2026-11-20",
                at: CareRecordBridge.now.addingTimeInterval(-10 * 86_400)
            )
            try await bridge.record(.bodyMass, 69.5, "kg", at: "2026-11-26T07:30")
            try await bridge.takePill(at: "2026-11-26T08:15")
            let events = try await Self.events(session, "2026-11-26"..."2026-11-27")
            // Friday 09:30: Thursday's evening pill was missed, Friday's morning one is late (the day is not over),
            // the rest of Friday is not due yet.
            #expect(
                Self.described(events, versions: try await Self.versionNumbers(bridge)) == [
                    "2026-11-26 00:00 weigh v1 done", "2026-11-26 08:00 pill v1 done",
                    "2026-11-26 20:00 pill v1 missed", "2026-11-27 00:00 weigh v1 due",
                    "2026-11-27 08:00 pill v1 late", "2026-11-27 20:00 pill v1 due",
                ]
            )
        }
    }

    @Test(
        .enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"),
        arguments: Engine.allCases
    )
    func aTaskChangedMidWeekHasTheOldVersionsEventsBeforeAndTheNewOnesAfter(engine: Engine) async throws {
        try await withSession(engine) { session in
            let bridge = session.bridge
            try await bridge.record(.bodyMass, 69.0, "kg", at: "2026-11-22T08:00")
            try await bridge.applyPlan(
                title: "Weigh yourself, shoes off",
                at: CareRecordBridge.now.addingTimeInterval(-3 * 86_400),
                effective: "2026-11-24T00:00:00"
            )
            try await bridge.record(.bodyMass, 69.5, "kg", at: "2026-11-25T08:00")
            let events = try await Self.events(session, "2026-11-22"..."2026-11-26")
            #expect(
                Self.described(events, versions: try await Self.versionNumbers(bridge)) == [
                    "2026-11-22 00:00 weigh v1 done", "2026-11-23 00:00 weigh v1 missed",
                    "2026-11-24 00:00 weigh v2 missed", "2026-11-25 00:00 weigh v2 done",
                    "2026-11-26 00:00 weigh v2 missed",
                ]
            )
            #expect(Set(events.map(\.title)).count == 2)
        }
    }

    @Test(
        .enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"),
        arguments: Engine.allCases
    )
    func aDayAcrossTheEndOfSummerTimeKeepsItsEventsAtTheirWallClockTimes(engine: Engine) async throws {
        try await withSession(engine) { session in
            let bridge = session.bridge
            // Berlin leaves summer time at 03:00 on Sunday 2026-10-25: that day has 25 hours.
            try await bridge.applyPillPlan(
                from: "2026-10-20",
                at: CareRecordBridge.now.addingTimeInterval(-40 * 86_400)
            )
            try await bridge.takePill(at: "2026-10-25T20:30")
            let events = try await Self.events(session, "2026-10-24"..."2026-10-26")
            #expect(
                Self.described(events, versions: try await Self.versionNumbers(bridge)) == [
                    "2026-10-24 08:00 pill v1 missed", "2026-10-24 20:00 pill v1 missed",
                    "2026-10-25 08:00 pill v1 missed", "2026-10-25 20:00 pill v1 done",
                    "2026-10-26 08:00 pill v1 missed", "2026-10-26 20:00 pill v1 missed",
                ]
            )
            // Saturday 08:00 to Sunday 08:00, across the change, is 25 hours.
            #expect(events[2].start.timeIntervalSince(events[0].start) == 25 * 3600)
        }
    }

    @Test(
        .enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"),
        arguments: Engine.allCases
    )
    func lateAgainstMissedIsJudgedOnThePatientsDayWhereverThePageIsRead(engine: Engine) async throws {
        try await withSession(engine) { session in
            try await session.bridge.applyPillPlan(
                from: "2026-11-20",
                at: CareRecordBridge.now.addingTimeInterval(-10 * 86_400)
            )
            let events = try await Self.events(session, "2026-11-26"..."2026-11-26")
            let evening = try #require(events.first { $0.taskName == "pill" && Self.hour($0) == 20 })
            #expect(evening.zone.identifier == CareRecordBridge.zone.identifier)
            // 23:30 UTC is already Friday 00:30 in Berlin: Thursday's 20:00 dose is missed for Ann, though a viewer in
            // UTC is still on Thursday (where it would read "late").
            let midnightInBerlin = Date(timeIntervalSince1970: 1_795_735_800)  // 2026-11-26T23:30:00Z
            #expect(evening.state(at: midnightInBerlin) == .missed)
            #expect(evening.state(at: midnightInBerlin.addingTimeInterval(-3600)) == .late)
        }
    }

    /// The hour an event starts at in Ann's zone.
    static func hour(_ event: CareRecordRows.Event) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = CareRecordBridge.zone
        return calendar.component(.hour, from: event.start)
    }
}
