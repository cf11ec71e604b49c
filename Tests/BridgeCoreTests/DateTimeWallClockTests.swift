import BridgeCore
import Foundation
import GATTDecoding
import Testing

/// `DateTime(wallClockOf:in:)`, the wall clock of an instant in a zone (device clocks written, epoch fields read),
/// checked against Foundation's calendar and against its inverse `date(in:)`.
@Suite struct DateTimeWallClockTests {
    static let zones = ["Europe/Berlin", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "UTC"]

    static func calendarWallClock(_ instant: Date, in zone: TimeZone) -> DateTime {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: instant)
        return DateTime(
            year: parts.year!,
            month: parts.month!,
            day: parts.day!,
            hours: parts.hour!,
            minutes: parts.minute!,
            seconds: parts.second!
        )
    }

    @Test(arguments: zones)
    func agreesWithTheCalendarHourByHourAcrossTwoYearsWithTheirDSTChanges(zone name: String) throws {
        let zone = try #require(TimeZone(identifier: name))
        // Every 61 minutes and 7 seconds from 2025-01-01 to 2027-01-01: every hour of the day, both DST changes.
        var instant = Date(timeIntervalSince1970: 1_735_689_600)
        while instant.timeIntervalSince1970 < 1_798_761_600 {
            let wallClock = DateTime(wallClockOf: instant, in: zone)
            #expect(wallClock == Self.calendarWallClock(instant, in: zone), "\(instant) in \(name)")
            instant.addTimeInterval(3_667)
        }
    }

    @Test func roundsDownToTheSecondAndBeforeTheEpochToo() throws {
        let utc = try #require(TimeZone(identifier: "UTC"))
        #expect(
            DateTime(wallClockOf: Date(timeIntervalSince1970: 59.999), in: utc)
                == DateTime(year: 1970, month: 1, day: 1, hours: 0, minutes: 0, seconds: 59)
        )
        #expect(
            DateTime(wallClockOf: Date(timeIntervalSince1970: -0.5), in: utc)
                == DateTime(year: 1969, month: 12, day: 31, hours: 23, minutes: 59, seconds: 59)
        )
    }

    @Test func isTheInverseOfDateInZoneOutsideTheRepeatedHour() throws {
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        for instant in [1_774_749_599.0, 1_774_749_600, 1_792_893_600, 1_800_000_000] {
            let date = Date(timeIntervalSince1970: instant)
            #expect(DateTime(wallClockOf: date, in: berlin).date(in: berlin) == date)
        }
    }
}
