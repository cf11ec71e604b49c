import CarePlan
import Foundation
import Testing

/// Daylight-saving transitions: Europe/Berlin 2026-03-29 (02:00 → 03:00) and 2026-10-25 (03:00 → 02:00);
/// America/New_York 2026-03-08 (02:00 → 03:00) and 2026-11-01 (02:00 → 01:00).
@Suite struct DSTScheduleTests {
    struct Transition: Sendable, CustomStringConvertible {
        var zone: String
        var day: String
        var dayBefore: String
        var dayAfter: String
        /// Length of the transition day in hours.
        var hours: Double
        var description: String { "\(zone) \(day)" }
    }

    static let transitions = [
        Transition(zone: "Europe/Berlin", day: "2026-03-29", dayBefore: "2026-03-28", dayAfter: "2026-03-30", hours: 23),
        Transition(zone: "Europe/Berlin", day: "2026-10-25", dayBefore: "2026-10-24", dayAfter: "2026-10-26", hours: 25),
        Transition(zone: "America/New_York", day: "2026-03-08", dayBefore: "2026-03-07", dayAfter: "2026-03-09", hours: 23),
        Transition(zone: "America/New_York", day: "2026-11-01", dayBefore: "2026-10-31", dayAfter: "2026-11-02", hours: 25),
    ]

    @Test("daily events keep their wall-clock time across the transition", arguments: transitions)
    func dailyKeepsWallClockTime(_ transition: Transition) {
        let zone = TimeZone(identifier: transition.zone)!
        let schedule = Schedule.daily(hour: 8, start: wall("2026-01-01"), timeZone: .fixed(transition.zone))
        let events = schedule.events(
            from: instant("\(transition.dayBefore)T00:00:00", zone),
            to: instant("\(transition.dayAfter)T23:00:00", zone),
            bridgeZone: utc
        )
        #expect(events.map { local($0.start, zone) } == [transition.dayBefore, transition.day, transition.dayAfter].map { "\($0)T08:00:00" })
        #expect(events[1].start.timeIntervalSince(events[0].start) == transition.hours * 3600)
        #expect(events[2].start.timeIntervalSince(events[1].start) == 24 * 3600)
        #expect(events.map(\.occurrence) == [events[0].occurrence, events[0].occurrence + 1, events[0].occurrence + 2])
    }

    @Test("all-day window spans the whole local day", arguments: transitions)
    func allDayWindowSpansTheLocalDay(_ transition: Transition) throws {
        let zone = TimeZone(identifier: transition.zone)!
        let schedule = Schedule(
            timeZonePolicy: .fixed(transition.zone),
            elements: [ScheduleElement(start: wall("2026-01-01"), interval: .days(1), duration: .allDay)]
        )
        let noon = instant("\(transition.day)T12:00:00", zone)
        let event = try #require(schedule.events(containing: noon, bridgeZone: utc).first)
        #expect(event.start == instant("\(transition.day)T00:00:00", zone))
        #expect(event.end.timeIntervalSince(event.start) == transition.hours * 3600 - 1)
        #expect(local(event.end, zone) == "\(transition.day)T23:59:59")
        #expect(event.contains(instant("\(transition.dayAfter)T00:00:00", zone).addingTimeInterval(-0.5)))
        #expect(!event.contains(instant("\(transition.dayAfter)T00:00:00", zone)))
    }

    @Test("weekly events keep their wall-clock time", arguments: transitions)
    func weeklyKeepsWallClockTime(_ transition: Transition) {
        let zone = TimeZone(identifier: transition.zone)!
        let day = wall(transition.day)
        let weekday = Weekday(rawValue: day.weekday)!
        let schedule = Schedule.weekly(weekdays: [weekday], hour: 9, minute: 15, start: wall("2026-01-01"), timeZone: .fixed(transition.zone))
        let events = schedule.events(
            from: instant("\(transition.day)T00:00:00", zone).addingTimeInterval(-8 * 86_400),
            to: instant("\(transition.day)T00:00:00", zone).addingTimeInterval(8 * 86_400),
            bridgeZone: utc
        )
        #expect(events.count == 3)
        #expect(events.allSatisfy { local($0.start, zone).hasSuffix("T09:15:00") })
        #expect(local(events[1].start, zone) == "\(transition.day)T09:15:00")
    }

    @Test func wallTimeInTheSpringGapMovesForwardOnlyThatDay() {
        let schedule = Schedule.daily(hour: 2, minute: 30, start: wall("2026-03-27"), timeZone: .fixed("Europe/Berlin"))
        let events = schedule.events(from: instant("2026-03-28T00:00:00"), to: instant("2026-03-31T00:00:00"), bridgeZone: utc)
        #expect(events.map { local($0.start, berlin) } == ["2026-03-28T02:30:00", "2026-03-29T03:30:00", "2026-03-30T02:30:00"])
        #expect(events.map { local($0.start, utc) } == ["2026-03-28T01:30:00", "2026-03-29T01:30:00", "2026-03-30T00:30:00"])
    }

    @Test func repeatedHourTakesTheEarlierInstant() {
        let schedule = Schedule.daily(hour: 1, minute: 30, start: wall("2026-10-30"), timeZone: .fixed("America/New_York"))
        let events = schedule.events(from: instant("2026-10-31T00:00:00"), to: instant("2026-11-03T00:00:00"), bridgeZone: utc)
        // 01:30 EDT (-4) on Nov 1, not 01:30 EST (-5).
        #expect(events.map { local($0.start, utc) } == ["2026-10-31T05:30:00", "2026-11-01T05:30:00", "2026-11-02T06:30:00"])
    }

    @Test func hourlyEventsStayEvenlySpacedThroughTheTransition() {
        let schedule = Schedule(
            timeZonePolicy: .fixed("Europe/Berlin"),
            elements: [ScheduleElement(start: wall("2026-10-25T00:00:00"), interval: .hours(1), duration: .seconds(0))]
        )
        let events = schedule.events(from: instant("2026-10-24T00:00:00"), to: instant("2026-10-25T04:00:00", berlin), bridgeZone: utc)
        #expect(events.map { local($0.start, berlin) } == [
            "2026-10-25T00:00:00", "2026-10-25T01:00:00", "2026-10-25T02:00:00", "2026-10-25T02:00:00", "2026-10-25T03:00:00",
        ])
        #expect(zip(events, events.dropFirst()).allSatisfy { $1.start.timeIntervalSince($0.start) == 3600 })
    }

    @Test func spanningTheTransitionCountsEveryDayOnce() {
        for zoneName in ["Europe/Berlin", "America/New_York"] {
            let zone = TimeZone(identifier: zoneName)!
            let schedule = Schedule(
                timeZonePolicy: .fixed(zoneName),
                elements: [ScheduleElement(start: wall("2026-01-01"), interval: .days(1), duration: .allDay)]
            )
            let events = schedule.events(from: instant("2026-01-01T00:00:00", zone), to: instant("2027-01-01T00:00:00", zone), bridgeZone: utc)
            #expect(events.count == 365)
            #expect(events.last?.occurrence == 364)
            #expect(zip(events, events.dropFirst()).allSatisfy { $0.end.addingTimeInterval(1) == $1.start })
        }
    }
}
