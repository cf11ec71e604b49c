import CarePlan
import Foundation
import Testing

@Suite struct DailyScheduleTests {
    @Test func dailyAtTimeYieldsOneEventPerDayAtThatWallClockTime() {
        let schedule = Schedule.daily(hour: 8, start: wall("2026-11-01"), timeZone: .fixed("Europe/Berlin"))
        let events = schedule.events(
            from: instant("2026-11-01T00:00:00", berlin),
            to: instant("2026-11-08T00:00:00", berlin),
            bridgeZone: utc
        )
        #expect(events.map(\.occurrence) == Array(0..<7))
        #expect(events.map { local($0.start, berlin) } == (1...7).map { "2026-11-0\($0)T08:00:00" })
        #expect(events.allSatisfy { $0.end.timeIntervalSince($0.start) == 3600 && !$0.isAllDay })
    }

    @Test func everyThreeDaysCountsFromTheStartDay() {
        let schedule = Schedule.every(days: 3, hour: 9, start: wall("2026-01-30"), timeZone: .fixed("UTC"))
        let events = schedule.events(from: instant("2026-02-01T00:00:00"), to: instant("2026-02-10T00:00:00"), bridgeZone: utc)
        #expect(events.map { local($0.start, utc) } == ["2026-02-02T09:00:00", "2026-02-05T09:00:00", "2026-02-08T09:00:00"])
        #expect(events.map(\.occurrence) == [1, 2, 3])
    }

    @Test func endIsExclusiveForEventStarts() {
        var schedule = Schedule.daily(hour: 8, start: wall("2026-05-01"), timeZone: .fixed("UTC"))
        schedule.elements[0].end = wall("2026-05-04T08:00:00")
        let events = schedule.events(from: instant("2026-04-01T00:00:00"), to: instant("2026-06-01T00:00:00"), bridgeZone: utc)
        #expect(events.map { local($0.start, utc) } == ["2026-05-01T08:00:00", "2026-05-02T08:00:00", "2026-05-03T08:00:00"])
        #expect(schedule.event(occurrence: 3, bridgeZone: utc) == nil)
        #expect(schedule.event(occurrence: 2, bridgeZone: utc)?.start == instant("2026-05-03T08:00:00"))

        schedule.elements[0].end = wall("2026-05-04T08:00:01")
        #expect(schedule.events(from: instant("2026-05-04T00:00:00"), to: instant("2026-06-01T00:00:00"), bridgeZone: utc).count == 1)
    }

    @Test func allDayEndLetsTheLastDayExistWhenEndIsAfterItsMidnight() {
        var schedule = Schedule(
            timeZonePolicy: .fixed("Europe/Berlin"),
            elements: [ScheduleElement(start: wall("2026-05-01"), end: wall("2026-05-03T12:00:00"), interval: .days(1), duration: .allDay)]
        )
        var events = schedule.events(from: instant("2026-04-01T00:00:00"), to: instant("2026-06-01T00:00:00"), bridgeZone: utc)
        #expect(events.map { local($0.start, berlin) } == ["2026-05-01T00:00:00", "2026-05-02T00:00:00", "2026-05-03T00:00:00"])
        schedule.elements[0].end = wall("2026-05-03")
        events = schedule.events(from: instant("2026-04-01T00:00:00"), to: instant("2026-06-01T00:00:00"), bridgeZone: utc)
        #expect(events.count == 2)
    }

    @Test func timedDurationWindowIsStartPlusSeconds() throws {
        let schedule = Schedule.daily(hour: 7, minute: 30, start: wall("2026-06-01"), duration: .minutes(45), timeZone: .fixed("UTC"))
        let event = try #require(schedule.event(occurrence: 10, bridgeZone: utc))
        #expect(event.start == instant("2026-06-11T07:30:00"))
        #expect(event.end == instant("2026-06-11T08:15:00"))
    }

    @Test func allDayWindowIsTheLocalDayEndingAt235959() throws {
        let schedule = Schedule(
            timeZonePolicy: .fixed("America/New_York"),
            elements: [ScheduleElement(start: wall("2026-06-01T15:00:00"), interval: .days(1), duration: .allDay)]
        )
        let event = try #require(schedule.event(occurrence: 2, bridgeZone: utc))
        #expect(event.isAllDay)
        #expect(local(event.start, newYork) == "2026-06-03T00:00:00")
        #expect(local(event.end, newYork) == "2026-06-03T23:59:59")
    }

    @Test func hourlyIntervalsAreAbsolute() {
        let schedule = Schedule(
            timeZonePolicy: .fixed("UTC"),
            elements: [ScheduleElement(start: wall("2026-06-01T00:00:00"), interval: .hours(6), duration: .seconds(0))]
        )
        let events = schedule.events(from: instant("2026-06-02T00:00:00"), to: instant("2026-06-03T00:00:00"), bridgeZone: utc)
        #expect(events.map(\.occurrence) == [4, 5, 6, 7])
        #expect(events.map { local($0.start, utc) } == ["2026-06-02T00:00:00", "2026-06-02T06:00:00", "2026-06-02T12:00:00", "2026-06-02T18:00:00"])
    }
}
