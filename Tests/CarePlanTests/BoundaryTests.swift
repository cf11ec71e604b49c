import CarePlan
import Foundation
import Testing

@Suite struct BoundaryTests {
    let timed = Schedule.daily(hour: 8, start: wall("2026-06-01"), duration: .hours(1), timeZone: .fixed("UTC"))

    @Test func eventEndingExactlyAtQueryStartIsIncluded() {
        let events = timed.events(
            from: instant("2026-06-02T09:00:00"),
            to: instant("2026-06-02T12:00:00"),
            bridgeZone: utc
        )
        #expect(events.map(\.occurrence) == [1])
        let after = timed.events(
            from: instant("2026-06-02T09:00:01"),
            to: instant("2026-06-02T12:00:00"),
            bridgeZone: utc
        )
        #expect(after.isEmpty)
    }

    @Test func eventStartingExactlyAtQueryEndIsExcluded() {
        let events = timed.events(
            from: instant("2026-06-02T00:00:00"),
            to: instant("2026-06-03T08:00:00"),
            bridgeZone: utc
        )
        #expect(events.map(\.occurrence) == [1])
        let later = timed.events(
            from: instant("2026-06-02T00:00:00"),
            to: instant("2026-06-03T08:00:00").addingTimeInterval(0.001),
            bridgeZone: utc
        )
        #expect(later.map(\.occurrence) == [1, 2])
    }

    @Test func timedContainsIsStartInclusiveEndExclusive() throws {
        let event = try #require(timed.event(occurrence: 0, bridgeZone: utc))
        #expect(event.contains(instant("2026-06-01T08:00:00")))
        #expect(event.contains(instant("2026-06-01T08:59:59.999")))
        #expect(!event.contains(instant("2026-06-01T09:00:00")))
        #expect(!event.contains(instant("2026-06-01T07:59:59.999")))
        #expect(timed.events(containing: instant("2026-06-01T09:00:00"), bridgeZone: utc).isEmpty)
        #expect(timed.events(containing: instant("2026-06-01T08:00:00"), bridgeZone: utc).map(\.occurrence) == [0])
    }

    @Test func instantEventContainsOnlyItsStart() throws {
        let schedule = Schedule.daily(
            hour: 8,
            start: wall("2026-06-01"),
            duration: .seconds(0),
            timeZone: .fixed("UTC")
        )
        let event = try #require(schedule.event(occurrence: 0, bridgeZone: utc))
        #expect(event.start == event.end)
        #expect(event.contains(instant("2026-06-01T08:00:00")))
        #expect(!event.contains(instant("2026-06-01T08:00:00").addingTimeInterval(0.001)))
        #expect(schedule.events(containing: instant("2026-06-01T08:00:00"), bridgeZone: utc).count == 1)
        #expect(
            schedule.events(from: instant("2026-06-01T08:00:00"), to: instant("2026-06-01T08:00:01"), bridgeZone: utc)
                .count == 1
        )
    }

    @Test func allDayContainsUntilTheNextLocalMidnight() throws {
        let schedule = Schedule(
            timeZonePolicy: .fixed("Europe/Berlin"),
            elements: [ScheduleElement(start: wall("2026-06-01"), interval: .days(1), duration: .allDay)]
        )
        let event = try #require(schedule.event(occurrence: 0, bridgeZone: utc))
        #expect(event.contains(instant("2026-06-01T23:59:59.5", berlin)))
        #expect(!event.contains(instant("2026-06-02T00:00:00", berlin)))
        let atMidnight = schedule.events(containing: instant("2026-06-02T00:00:00", berlin), bridgeZone: utc)
        #expect(atMidnight.map(\.occurrence) == [1])
        // The late half second belongs to day 0 only.
        let late = schedule.events(containing: instant("2026-06-01T23:59:59.5", berlin), bridgeZone: utc)
        #expect(late.map(\.occurrence) == [0])
    }

    @Test func overlappingElementsBothContainASample() {
        let schedule = Schedule(
            timeZonePolicy: .fixed("UTC"),
            elements: [
                ScheduleElement(start: wall("2026-06-01"), interval: .days(1), duration: .allDay),
                ScheduleElement(start: wall("2026-06-01T07:00:00"), interval: .days(1), duration: .hours(2)),
            ]
        )
        let events = schedule.events(containing: instant("2026-06-03T08:00:00"), bridgeZone: utc)
        #expect(events.map(\.elementIndex) == [0, 1])
        #expect(events.map(\.occurrence) == [4, 5])
    }

    @Test func queriesBeforeTheStartAreEmptyAndCountZero() {
        #expect(
            timed.events(from: instant("2020-01-01T00:00:00"), to: instant("2026-06-01T08:00:00"), bridgeZone: utc)
                .isEmpty
        )
        #expect(timed.occurrenceCount(before: instant("2026-06-01T08:00:00"), bridgeZone: utc) == 0)
        #expect(timed.occurrenceCount(before: instant("2026-06-01T08:00:01"), bridgeZone: utc) == 1)
        #expect(timed.event(occurrence: -1, bridgeZone: utc) == nil)
    }
}
