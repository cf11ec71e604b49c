import BridgeCore
import CarePlan
import Foundation
import Testing

@Suite struct WallClockTimeTests {
    @Test(arguments: [
        ("2026-11-01", "2026-11-01T00:00:00"),
        ("2026-11-01T07:30", "2026-11-01T07:30:00"),
        ("2026-11-01T07:30:15", "2026-11-01T07:30:15"),
        ("2028-02-29T23:59:59", "2028-02-29T23:59:59"),
    ])
    func parsesDateAndTimeForms(text: String, normalised: String) throws {
        #expect(try WallClockTime(parsing: text).description == normalised)
    }

    @Test(arguments: [
        "2026-02-29", "2026-13-01", "2026-00-10", "2026-04-31", "2026-11-01T24:00", "2026-11-01T10:60",
        "2026-11-01T10:00:00Z", "2026-11-01T10:00:00+01:00", "26-11-01", "2026/11/01", "", "2026-11-01T10",
    ])
    func rejectsImpossibleOrZonedText(text: String) {
        #expect(throws: WallClockTime.ParseError.self) { try WallClockTime(parsing: text) }
    }

    @Test func ordersChronologically() {
        #expect(wall("2026-11-01T23:59:59") < wall("2026-11-02"))
        #expect(wall("2025-12-31T23:00:00") < wall("2026-01-01T00:00:00"))
        #expect(!(wall("2026-01-01") < wall("2026-01-01")))
    }

    @Test func weekdayNumbersFromSunday() {
        #expect(wall("2026-11-01").weekday == 1)  // a Sunday
        #expect(wall("2026-11-07").weekday == 7)
        #expect(wall("1970-01-01").weekday == 5)  // a Thursday
        #expect(wall("1969-12-28").weekday == 1)
    }

    /// Every half hour of a year resolves to the same instant as Foundation's calendar, including gaps
    /// (moved forward), repeated hours (earlier instant) and changes of standard offset (Moscow 2014,
    /// Pyongyang 2015, Samoa skipping 2011-12-30).
    @Test(arguments: [
        ("Europe/Berlin", 2026), ("America/New_York", 2026), ("Australia/Lord_Howe", 2026),
        ("America/Santiago", 2026), ("Asia/Kolkata", 2026), ("Pacific/Chatham", 2026), ("Europe/Moscow", 2014),
        ("Asia/Pyongyang", 2015), ("Pacific/Apia", 2011),
    ])
    func resolvesLikeFoundationsCalendar(zoneName: String, year: Int) {
        let zone = TimeZone(identifier: zoneName)!
        var mismatches: [String] = []
        var wallTime = WallClockTime(year: year, month: 1, day: 1)
        var steps = 0
        while wallTime.year == year {
            let expected = Timestamp.date(
                year: wallTime.year,
                month: wallTime.month,
                day: wallTime.day,
                hour: wallTime.hour,
                minute: wallTime.minute,
                second: wallTime.second,
                in: zone
            )
            if wallTime.date(in: zone) != expected, mismatches.count < 5 { mismatches.append(wallTime.description) }
            // Half-hour steps, wrapping the clock fields by hand.
            wallTime.minute += 30
            if wallTime.minute == 60 {
                wallTime.minute = 0
                wallTime.hour += 1
            }
            if wallTime.hour == 24 {
                wallTime.hour = 0
                wallTime.day += 1
                if wallTime.validationProblem != nil {
                    wallTime.day = 1
                    wallTime.month += 1
                }
                if wallTime.month == 13 { wallTime = WallClockTime(year: year + 1, month: 1, day: 1) }
            }
            steps += 1
        }
        #expect(steps == 365 * 48)
        #expect(mismatches.isEmpty, "\(zoneName): \(mismatches)")
    }

    @Test func roundTripsAnInstantThroughItsZone() {
        let date = instant("2026-10-25T00:30:00")  // 02:30 CEST, the first of the two 02:30s in Berlin
        #expect(WallClockTime(date, in: berlin) == wall("2026-10-25T02:30:00"))
        #expect(wall("2026-10-25T02:30:00").date(in: berlin) == date)
        #expect(wall("2026-03-29T02:30:00").date(in: berlin) == instant("2026-03-29T01:30:00"))
    }
}
