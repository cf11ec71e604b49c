import CarePlan
import Foundation
import Testing

@Suite struct TimeZonePolicyTests {
    @Test func floatingScheduleFollowsTheBridgeZone() throws {
        let schedule = Schedule.daily(hour: 8, start: wall("2026-11-01"), timeZone: .floating)
        let inBerlin = try #require(schedule.event(occurrence: 5, bridgeZone: berlin))
        let inNewYork = try #require(schedule.event(occurrence: 5, bridgeZone: newYork))
        #expect(local(inBerlin.start, berlin) == "2026-11-06T08:00:00")
        #expect(local(inNewYork.start, newYork) == "2026-11-06T08:00:00")
        #expect(inNewYork.start.timeIntervalSince(inBerlin.start) == 6 * 3600)
    }

    @Test func fixedScheduleIgnoresTheBridgeZone() {
        let schedule = Schedule.daily(hour: 8, start: wall("2026-11-01"), timeZone: .fixed("Europe/Berlin"))
        let window = (instant("2026-11-01T00:00:00"), instant("2026-12-01T00:00:00"))
        let inBerlin = schedule.events(from: window.0, to: window.1, bridgeZone: berlin)
        let inNewYork = schedule.events(from: window.0, to: window.1, bridgeZone: newYork)
        #expect(inBerlin.count == 30)
        #expect(inBerlin == inNewYork)
        #expect(inNewYork.allSatisfy { local($0.start, berlin).hasSuffix("T08:00:00") })
    }

    @Test func floatingAllDayEventKeepsItsCalendarDayAfterTravellingWest() throws {
        // CareKit re-applies startOfDay in the new zone and shifts the occurrence → day mapping (#626).
        let schedule = Schedule(
            timeZonePolicy: .floating,
            elements: [ScheduleElement(start: wall("2026-11-01"), interval: .days(1), duration: .allDay)]
        )
        for zone in [berlin, newYork, TimeZone(identifier: "Pacific/Auckland")!] {
            let event = try #require(schedule.event(occurrence: 9, bridgeZone: zone))
            #expect(local(event.start, zone) == "2026-11-10T00:00:00")
            #expect(local(event.end, zone) == "2026-11-10T23:59:59")
        }
    }

    @Test func fixedAllDayEventIsTheDayOfItsOwnZone() throws {
        let schedule = Schedule(
            timeZonePolicy: .fixed("Europe/Berlin"),
            elements: [ScheduleElement(start: wall("2026-11-01"), interval: .days(1), duration: .allDay)]
        )
        let event = try #require(schedule.event(occurrence: 0, bridgeZone: newYork))
        #expect(event.start == instant("2026-10-31T23:00:00"))
        // 20:00 in New York on Nov 1 is already Nov 2 in Berlin.
        let evening = instant("2026-11-01T20:00:00", newYork)
        #expect(schedule.events(containing: evening, bridgeZone: newYork).map(\.occurrence) == [1])
    }

    @Test func policyParsing() {
        #expect(TimeZonePolicy(parsing: "floating") == .floating)
        #expect(TimeZonePolicy(parsing: "America/New_York") == .fixed("America/New_York"))
        #expect(TimeZonePolicy(parsing: "Mars/Olympus_Mons") == nil)
        #expect(TimeZonePolicy.fixed("Europe/Berlin").zone(bridge: newYork).identifier == "Europe/Berlin")
        #expect(TimeZonePolicy.floating.zone(bridge: newYork).identifier == "America/New_York")
    }
}
