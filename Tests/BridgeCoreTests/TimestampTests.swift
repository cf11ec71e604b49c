import BridgeCore
import Foundation
import GATTDecoding
import Testing

@Suite struct TimestampTests {
    private let berlin = TimeZone(identifier: "Europe/Berlin")!
    private let newYork = TimeZone(identifier: "America/New_York")!

    @Test func formatsWithTheZoneOffset() {
        let date = Date(timeIntervalSince1970: 1_703_514_645)  // 2023-12-25T14:30:45Z
        #expect(Timestamp.format(date, in: TimeZone(identifier: "UTC")!) == "2023-12-25T14:30:45+00:00")
        #expect(Timestamp.format(date, in: berlin) == "2023-12-25T15:30:45+01:00")
        #expect(Timestamp.format(date, in: newYork) == "2023-12-25T09:30:45-05:00")
        #expect(Timestamp.format(date.addingTimeInterval(0.25), in: berlin) == "2023-12-25T15:30:45.250+01:00")
    }

    @Test func parsesDatesTimesAndOffsets() throws {
        #expect(try Timestamp.parse("2026-11-20", in: berlin) == Date(timeIntervalSince1970: 1_795_129_200))
        #expect(try Timestamp.parse("2026-11-20T07:30", in: berlin) == Date(timeIntervalSince1970: 1_795_156_200))
        #expect(try Timestamp.parse("2026-11-20T06:30:00Z", in: berlin) == Date(timeIntervalSince1970: 1_795_156_200))
        #expect(
            try Timestamp.parse("2026-11-20T01:30:00-05:00", in: berlin) == Date(timeIntervalSince1970: 1_795_156_200)
        )
        #expect(throws: Timestamp.ParseError.self) { try Timestamp.parse("20/11/2026", in: berlin) }
        #expect(throws: Timestamp.ParseError.self) { try Timestamp.parse("2026-13-01", in: berlin) }
    }

    /// The fast resolver must agree with Foundation's calendar on every hour of a year, DST days included.
    @Test(arguments: ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "UTC"])
    func deviceTimesResolveLikeTheCalendar(zoneName: String) throws {
        let zone = try #require(TimeZone(identifier: zoneName))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        for dayOfYear in 0..<366 {
            let noon = try #require(calendar.date(from: DateComponents(year: 2026, month: 1, day: 1, hour: 12)))
            let day = try #require(calendar.date(byAdding: .day, value: dayOfYear, to: noon))
            let parts = calendar.dateComponents([.year, .month, .day], from: day)
            for hour in 0..<24 {
                for minute in [0, 30] {
                    let deviceTime = DateTime(
                        year: parts.year!,
                        month: parts.month!,
                        day: parts.day!,
                        hours: hour,
                        minutes: minute,
                        seconds: 0
                    )
                    let expected = calendar.date(
                        from: DateComponents(
                            year: parts.year,
                            month: parts.month,
                            day: parts.day,
                            hour: hour,
                            minute: minute
                        )
                    )
                    #expect(deviceTime.date(in: zone) == expected, "\(deviceTime) in \(zoneName)")
                }
            }
        }
    }

    @Test func gapTimesMoveForwardAndRepeatedTimesTakeTheEarlierInstant() {
        // 2026-03-29 02:30 does not exist in Berlin (clocks jump 02:00 → 03:00): 03:30 CEST = 01:30Z.
        let gap = DateTime(year: 2026, month: 3, day: 29, hours: 2, minutes: 30, seconds: 0)
        #expect(gap.date(in: berlin) == Date(timeIntervalSince1970: 1_774_747_800))
        // 2026-10-25 02:30 happens twice in Berlin: first at 00:30Z (CEST).
        let repeated = DateTime(year: 2026, month: 10, day: 25, hours: 2, minutes: 30, seconds: 0)
        #expect(repeated.date(in: berlin) == Date(timeIntervalSince1970: 1_792_888_200))
    }

    @Test func unknownDeviceDateHasNoInstant() {
        #expect(DateTime(year: 0, month: 3, day: 15, hours: 7, minutes: 0, seconds: 0).date(in: berlin) == nil)
    }

    @Test func rejectsDaysBeyondTheMonth() {
        // 2026-02-29 does not exist; 2024-02-29 does.
        #expect(throws: GATTDecodingError.self) { try DateTime.decode([0xEA, 0x07, 0x02, 0x1D, 0, 0, 0]) }
        #expect(throws: Never.self) { try DateTime.decode([0xE8, 0x07, 0x02, 0x1D, 0, 0, 0]) }
    }
}
