import GATTDecoding
import Testing

/// Date Time (0x2A08) read from the wire: every field at and beyond its limits, checked against the spec's
/// rules written out independently here (zero means "unknown" in year, month and day; the day must exist in
/// its month when year and month are known).
@Suite struct DateTimeTests {
    /// The field the spec says is wrong first (in field order) and its offset, or nil for a valid time.
    static func firstInvalidField(
        year: Int,
        month: Int,
        day: Int,
        hours: Int,
        minutes: Int,
        seconds: Int
    ) -> (field: String, offset: Int)? {
        if year != 0 && !(1582...9999).contains(year) { return ("Year", 0) }
        if month > 12 { return ("Month", 2) }
        if day > 31 { return ("Day", 3) }
        if year != 0, month != 0 {
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            let length = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
            if day > length { return ("Day", 3) }
        }
        if hours > 23 { return ("Hours", 4) }
        if minutes > 59 { return ("Minutes", 5) }
        if seconds > 59 { return ("Seconds", 6) }
        return nil
    }

    @Test func everyFieldAtAndBeyondItsLimitsIsReadOrRefusedNamingTheFirstWrongField() {
        var checked = 0
        for year in [0, 1, 1581, 1582, 1900, 2000, 2023, 2024, 9999, 10000, 65535] {
            for month in [0, 1, 2, 4, 12, 13, 255] {
                for day in [0, 1, 28, 29, 30, 31, 32, 255] {
                    for hours in [0, 23, 24, 255] {
                        for minutes in [0, 59, 60] {
                            for seconds in [0, 59, 60] {
                                let bytes: [UInt8] = [
                                    UInt8(year & 0xFF), UInt8(year >> 8), UInt8(month), UInt8(day), UInt8(hours),
                                    UInt8(minutes), UInt8(seconds),
                                ]
                                let expected = Self.firstInvalidField(
                                    year: year,
                                    month: month,
                                    day: day,
                                    hours: hours,
                                    minutes: minutes,
                                    seconds: seconds
                                )
                                let label = "\(year)-\(month)-\(day) \(hours):\(minutes):\(seconds)"
                                let numbers = [year, month, day, hours, minutes, seconds]
                                #expect((DateTime(checking: numbers) != nil) == (expected == nil), "\(label)")
                                do {
                                    let value = try DateTime.decode(bytes)
                                    #expect(expected == nil, "\(label) was read; expected \(expected!.field) refused")
                                    #expect(
                                        [value.year, value.month, value.day, value.hours, value.minutes, value.seconds]
                                            == [year, month, day, hours, minutes, seconds],
                                        "\(label)"
                                    )
                                } catch {
                                    guard let expected else {
                                        Issue.record("\(label) refused: \(error)")
                                        continue
                                    }
                                    guard case .invalidValue(let field, let raw, _) = error.reason else {
                                        Issue.record("\(label): \(error)")
                                        continue
                                    }
                                    #expect(field == expected.field, "\(label)")
                                    #expect(error.offset == expected.offset, "\(label)")
                                    #expect(raw == UInt64(field == "Year" ? year : Int(bytes[expected.offset])))
                                }
                                checked += 1
                            }
                        }
                    }
                }
            }
        }
        #expect(checked == 11 * 7 * 8 * 4 * 3 * 3)
    }

    @Test func sixNumbersMakeADateTimeOnlyWhenEachIsInItsRange() {
        #expect(DateTime(checking: [2024, 2, 29, 7, 30, 0])?.description == "2024-02-29T07:30:00")
        #expect(DateTime(checking: [0, 0, 0, 0, 0, 0])?.isUnknown == true)
        #expect(DateTime(checking: [2023, 2, 29, 7, 30, 0]) == nil)
        #expect(DateTime(checking: [2024, -1, 15, 7, 30, 0]) == nil)
        #expect(DateTime(checking: [2024, 3, 15, 7, 30]) == nil)
        #expect(DateTime(checking: [2024, 3, 15, 7, 30, 0, 0]) == nil)
    }

    @Test func aDayThatDoesNotExistInItsMonthSaysHowManyDaysTheMonthHas() throws {
        let error = try #require(throws: GATTDecodingError.self) {
            try DateTime.decode([0xE7, 0x07, 0x02, 0x1D, 0x07, 0x1E, 0x00])  // 2023-02-29
        }
        #expect(error.offset == 3)
        #expect("\(error)".contains("1–28 for 2023-2"), "\(error)")
    }

    @Test func aShortValueIsRefusedBeforeAnyFieldIsRead() throws {
        let error = try #require(throws: GATTDecodingError.self) {
            try DateTime.decode([0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E])
        }
        guard case .insufficientBytes(_, let expected, let available) = error.reason else {
            Issue.record("\(error)")
            return
        }
        #expect(expected == 7 && available == 6)
    }
}
