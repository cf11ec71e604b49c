import BridgeCore
import CarePlan
import CareStore
import Foundation
import Testing

/// The one rule that makes several bridges' copies of an event one (``CareRecordRows/Event/merged(_:)``), on
/// events made in memory: what pairs with what, and what the merged event's state is.
struct RecordEventMergeTests {
    static let zone = TimeZone(identifier: "Europe/Berlin")!
    /// Thursday 2026-11-26, 08:00 in Berlin.
    static let eight = Date(timeIntervalSince1970: 1_795_676_400)

    /// A one-hour pill event at `start`, as `bridge` computed it (nil: a bridge's own store), with `outcome`.
    static func event(
        _ bridge: String?,
        occurrence: Int = 0,
        at start: Date = eight,
        outcome: Outcome? = nil
    ) -> CareRecordRows.Event {
        let event = CareEvent(
            key: EventKey(taskID: "pill", taskVersion: UUID(), occurrence: occurrence),
            title: "Take the pill",
            kind: .intervention,
            impactsAdherence: true,
            start: start,
            end: start.addingTimeInterval(3600),
            isAllDay: false,
            text: nil,
            targetValues: [],
            timeZone: zone,
            outcome: outcome
        )
        return CareRecordRows.Event(event, zone: zone, bridge: bridge)
    }

    static let taken = Outcome(
        values: [
            OutcomeValue(
                value: 1,
                unit: HealthUnit(rawValue: "count"),
                measuredAt: eight,
                sampleID: nil,
                recordedAt: eight
            )
        ],
        createdDate: eight,
        updatedDate: eight
    )
    static let refused = Outcome(values: [], createdDate: eight, updatedDate: eight, notDoneReason: "nausea")

    @Test func twoCopiesOnOneBridgeStayTwoEachPairedWithACopyOfTheOtherBridge() {
        let merged = CareRecordRows.Event.merged([
            Self.event("home-1", occurrence: 0), Self.event("home-1", occurrence: 1),
            Self.event("home-2", occurrence: 0), Self.event("home-2", occurrence: 1),
        ])
        #expect(merged.map { $0.bridges.map(\.bridge) } == [["home-1", "home-2"], ["home-1", "home-2"]])
        #expect(merged.map { $0.bridges.map(\.occurrence) } == [[0, 0], [1, 1]])
    }

    @Test func eventsOfABridgesOwnStoreNeverMerge() {
        #expect(CareRecordRows.Event.merged([Self.event(nil), Self.event(nil)]).count == 2)
    }

    @Test func eventsAtDifferentTimesStayApartEachWithItsBridge() {
        let nine = Self.eight.addingTimeInterval(3600)
        let merged = CareRecordRows.Event.merged([Self.event("home-1"), Self.event("home-2", at: nine)])
        #expect(merged.map { $0.bridges.map(\.bridge) } == [["home-1"], ["home-2"]])
    }

    @Test func doneOnEitherBridgeIsDoneAndEachBridgesOutcomeStaysWithIt() {
        let later = Self.eight.addingTimeInterval(86_400)
        let done = CareRecordRows.Event.merged([
            Self.event("home-1", outcome: Self.refused), Self.event("home-2", outcome: Self.taken),
        ])
        #expect(done.count == 1 && done[0].state(at: later) == .done && done[0].notDoneReason == nil)
        #expect(done[0].bridges.map(\.notDoneReason) == ["nausea", nil])
        #expect(done[0].bridges.map(\.isCompleted) == [false, true])
        let notDone = CareRecordRows.Event.merged([Self.event("home-1"), Self.event("home-2", outcome: Self.refused)])
        #expect(notDone.count == 1 && notDone[0].state(at: later) == .notDone && notDone[0].notDoneReason == "nausea")
        let missed = CareRecordRows.Event.merged([Self.event("home-1"), Self.event("home-2")])
        #expect(missed.count == 1 && missed[0].state(at: later) == .missed)
    }
}
