import BridgeCore
import CarePlan
import CareStore
import Foundation
import Testing

/// `recordSamples` names the events it changed, and `events(keys:)` fetches exactly those: a caller never has to
/// search an interval to find what its own write completed.
@Suite struct UpdatedEventsTests {
    typealias F = StoreFixture

    @Test func recordSamplesNamesTheEventsItChangedAndEventsByKeyFetchesThem() async throws {
        let fixture = try F()
        try await fixture.store.addTask(QuarantineAndOutOfRangeTests.glucoseCheck(.each))
        let samples = [
            QuarantineAndOutOfRangeTests.glucose(101, at: F.berlinTime(2026, 11, 10, 8, 0), payload: 1),
            QuarantineAndOutOfRangeTests.glucose(140, at: F.berlinTime(2026, 11, 10, 19, 0), payload: 2),
            QuarantineAndOutOfRangeTests.glucose(96, at: F.berlinTime(2026, 11, 12, 7, 30), payload: 3),
        ]
        let report = try await fixture.store.recordSamples(samples)
        #expect(report.eventsUpdated == 2)
        #expect(report.updatedEvents.count == 2)
        #expect(Set(report.updatedEvents.map(\.taskID)) == ["glucose"])

        let events = try await fixture.store.events(keys: report.updatedEvents.reversed())
        let days = events.map { Timestamp.format($0.start, in: F.berlin).prefix(10) }
        #expect(days == ["2026-11-10", "2026-11-12"])  // sorted by start, whatever order the keys came in
        #expect(events[0].outcome?.values.map(\.value) == [101, 140])
        #expect(events[1].outcome?.values.map(\.value) == [96])
        #expect(events.allSatisfy { $0.isCompleted })

        // Storing the same samples again changes nothing and names no event.
        let again = try await fixture.store.recordSamples(samples)
        #expect(again.duplicates == 3 && again.updatedEvents.isEmpty)
        #expect(try await fixture.store.events(keys: again.updatedEvents).isEmpty == true)
    }

    @Test func aKeyOfAnUnknownVersionOrOccurrenceIsLeftOut() async throws {
        let fixture = try F()
        try await fixture.store.addTask(QuarantineAndOutOfRangeTests.glucoseCheck(.each))
        let report = try await fixture.store.recordSamples([
            QuarantineAndOutOfRangeTests.glucose(101, at: F.berlinTime(2026, 11, 10, 8, 0), payload: 1)
        ])
        let known = try #require(report.updatedEvents.first)
        let unknownVersion = EventKey(taskID: "glucose", taskVersion: UUID(), occurrence: known.occurrence)
        let negative = EventKey(taskID: "glucose", taskVersion: known.taskVersion, occurrence: -1)
        let events = try await fixture.store.events(keys: [known, unknownVersion, negative])
        #expect(events.map(\.key) == [known])
    }
}
