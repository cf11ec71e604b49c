import CarePlan
import Foundation
import Testing

@Suite struct WeeklyAndMonthlyTests {
    /// CareKit 1.x example: 4 on Monday, 2 on Wednesday, 4 on Friday (counts from Sunday).
    @Test func weeklyOccurrencesYieldThatManyAllDayEventsPerWeekday() {
        let schedule = Schedule.weeklyOccurrences(
            [0, 4, 0, 2, 0, 4, 0],
            start: wall("2026-11-01"),
            timeZone: .fixed("Europe/Berlin")
        )
        let events = schedule.events(
            from: instant("2026-11-01T00:00:00", berlin),
            to: instant("2026-11-15T00:00:00", berlin),
            bridgeZone: utc
        )
        #expect(events.count == 20)
        #expect(events.map(\.occurrence) == Array(0..<20))
        #expect(events.allSatisfy { $0.isAllDay })
        let days = events.map { local($0.start, berlin).prefix(10) }
        #expect(
            days.prefix(10) == [
                "2026-11-02", "2026-11-02", "2026-11-02", "2026-11-02", "2026-11-04", "2026-11-04",
                "2026-11-06", "2026-11-06", "2026-11-06", "2026-11-06",
            ]
        )
        #expect(days[10] == "2026-11-09")
        #expect(
            schedule.events(containing: instant("2026-11-04T12:00:00", berlin), bridgeZone: utc).map(\.occurrence) == [
                4, 5,
            ]
        )
        #expect(schedule.events(containing: instant("2026-11-05T12:00:00", berlin), bridgeZone: utc).isEmpty)
    }

    @Test func weeklyOccurrencesStartingMidWeekSkipEarlierWeekdays() {
        // Starts on Thursday 2026-11-05: the first Monday is 2026-11-09.
        let schedule = Schedule.weeklyOccurrences(
            [0, 1, 0, 0, 0, 1, 0],
            start: wall("2026-11-05"),
            timeZone: .fixed("UTC")
        )
        let events = schedule.events(
            from: instant("2026-11-01T00:00:00"),
            to: instant("2026-11-17T00:00:00"),
            bridgeZone: utc
        )
        #expect(
            events.map { local($0.start, utc).prefix(10) } == ["2026-11-06", "2026-11-09", "2026-11-13", "2026-11-16"]
        )
        #expect(schedule.event(occurrence: 0, bridgeZone: utc)?.start == instant("2026-11-06T00:00:00"))
    }

    @Test func weeklyConvenienceOneElementPerWeekday() {
        let schedule = Schedule.weekly(
            weekdays: [.friday, .monday, .wednesday],
            hour: 7,
            minute: 30,
            start: wall("2026-11-04"),
            timeZone: .fixed("UTC")
        )
        #expect(
            schedule.elements.map(\.start) == [
                wall("2026-11-04T07:30:00"), wall("2026-11-06T07:30:00"), wall("2026-11-09T07:30:00"),
            ]
        )
        #expect(schedule.elements.allSatisfy { $0.interval == .weeks(1) })
        let events = schedule.events(
            from: instant("2026-11-01T00:00:00"),
            to: instant("2026-11-15T00:00:00"),
            bridgeZone: utc
        )
        #expect(
            events.map { local($0.start, utc) } == [
                "2026-11-04T07:30:00", "2026-11-06T07:30:00", "2026-11-09T07:30:00", "2026-11-11T07:30:00",
                "2026-11-13T07:30:00",
            ]
        )
        #expect(events.map(\.occurrence) == [0, 1, 2, 3, 4])
    }

    @Test func monthlyFromTheThirtyFirstDriftsAfterFebruary() {
        let schedule = Schedule(
            timeZonePolicy: .fixed("Europe/Berlin"),
            elements: [ScheduleElement(start: wall("2026-01-31T09:00:00"), interval: .months(1), duration: .hours(1))]
        )
        let events = schedule.events(
            from: instant("2026-01-01T00:00:00"),
            to: instant("2026-07-01T00:00:00"),
            bridgeZone: utc
        )
        #expect(
            events.map { local($0.start, berlin) } == [
                "2026-01-31T09:00:00", "2026-02-28T09:00:00", "2026-03-28T09:00:00", "2026-04-28T09:00:00",
                "2026-05-28T09:00:00",
                "2026-06-28T09:00:00",
            ]
        )
    }

    @Test func monthlyDriftFollowsLeapFebruary() {
        let schedule = Schedule(
            timeZonePolicy: .fixed("UTC"),
            elements: [ScheduleElement(start: wall("2028-01-30"), interval: .months(1), duration: .allDay)]
        )
        let events = schedule.events(
            from: instant("2028-01-01T00:00:00"),
            to: instant("2028-05-01T00:00:00"),
            bridgeZone: utc
        )
        #expect(
            events.map { local($0.start, utc).prefix(10) } == ["2028-01-30", "2028-02-29", "2028-03-29", "2028-04-29"]
        )
    }

    @Test func monthlyQueryFarFromTheStartKeepsNumbering() throws {
        let schedule = Schedule(
            timeZonePolicy: .fixed("UTC"),
            elements: [ScheduleElement(start: wall("1980-03-15T10:00:00"), interval: .months(1), duration: .hours(1))]
        )
        let events = schedule.events(
            from: instant("2026-03-01T00:00:00"),
            to: instant("2026-04-01T00:00:00"),
            bridgeZone: utc
        )
        let event = try #require(events.first)
        #expect(events.count == 1)
        #expect(event.occurrence == (2026 - 1980) * 12)
        #expect(schedule.event(occurrence: event.occurrence, bridgeZone: utc) == event)
    }

    @Test func yearlyAsTwelveMonths() {
        let schedule = Schedule(
            timeZonePolicy: .fixed("UTC"),
            elements: [ScheduleElement(start: wall("2024-02-29"), interval: .months(12), duration: .allDay)]
        )
        let events = schedule.events(
            from: instant("2024-01-01T00:00:00"),
            to: instant("2029-01-01T00:00:00"),
            bridgeZone: utc
        )
        #expect(
            events.map { local($0.start, utc).prefix(10) } == [
                "2024-02-29", "2025-02-28", "2026-02-28", "2027-02-28", "2028-02-28",
            ]
        )
    }
}
