import BridgeFoundation
import GATTDecoding
import Testing

@Suite struct CurrentTimeTests {
    @Test func decodesTheDocumentExample() throws {
        // E8 07 03 0F 07 1E 00 05 00 01 → 2024-03-15 07:30:00, Friday, manual adjustment
        let value = try CurrentTime.decode(hex("E8 07 03 0F 07 1E 00 05 00 01"))
        #expect(value.dateTime == .example)
        #expect(value.dayOfWeek == 5)
        #expect(value.dayOfWeekName == "Friday")
        #expect(value.fractions256 == 0)
        #expect(value.adjustReason == .manualTimeUpdate)
        #expect(
            value.fields.keys == [
                "dateTime", "dayOfWeek", "dayOfWeekName", "fractions256", "adjustReason", "adjustReasonBits",
            ]
        )
        #expect(value.fields["adjustReasonBits"] == .array([.string("manual time update")]))
    }

    @Test func encodesTheBytesToWriteAndRoundTrips() throws {
        let value = CurrentTime(dateTime: .example, fractions256: 128, adjustReason: [.manualTimeUpdate, .changeOfDST])
        #expect(value.dayOfWeek == 5)  // computed from the date
        #expect(value.bytes == hex("E8 07 03 0F 07 1E 00 05 80 09"))
        #expect(try CurrentTime.decode(value.bytes) == value)
        let unknown = CurrentTime(dateTime: DateTime(year: 0, month: 0, day: 0, hours: 0, minutes: 0, seconds: 0))
        #expect(unknown.dayOfWeek == 0)
        #expect(try CurrentTime.decode(unknown.bytes) == unknown)
        #expect(try CurrentTime.decode(unknown.bytes).dayOfWeekName == "unknown")
    }

    @Test func roundTripsEveryAdjustReasonAndWeekday() throws {
        for reason in 0...255 {
            let value = CurrentTime(
                dateTime: DateTime(year: 2025, month: 12, day: 31, hours: 23, minutes: 59, seconds: 59),
                dayOfWeek: UInt8(reason % 9),
                fractions256: UInt8(255 - reason),
                adjustReason: .init(rawValue: UInt8(reason))
            )
            #expect(try CurrentTime.decode(value.bytes) == value)
        }
        #expect(try CurrentTime.decode(hex("E8 07 03 0F 07 1E 00 08 00 F0")).dayOfWeekName == "reserved")
        #expect(
            try CurrentTime.decode(hex("E8 07 03 0F 07 1E 00 07 00 F0")).fields["adjustReasonBits"]
                == .array([
                    .string("reserved bit 4"), .string("reserved bit 5"), .string("reserved bit 6"),
                    .string("reserved bit 7"),
                ])
        )
    }

    @Test func rejectsEveryTruncatedPrefixAndAnImpossibleTime() {
        expectEveryPrefixThrows(CurrentTime.self, hex("E8 07 03 0F 07 1E 00 05 00 01"))
        #expect(throws: GATTDecodingError.self) { try CurrentTime.decode(hex("E8 07 03 0F 07 3C 00 05 00 01")) }
    }
}

@Suite struct DateTimeArithmeticTests {
    @Test(arguments: [
        (DateTime(year: 1970, month: 1, day: 1, hours: 0, minutes: 0, seconds: 0), 4),  // Thursday
        (DateTime(year: 2000, month: 1, day: 1, hours: 0, minutes: 0, seconds: 0), 6),  // Saturday
        (DateTime(year: 2024, month: 2, day: 29, hours: 12, minutes: 0, seconds: 0), 4),  // Thursday
        (DateTime(year: 1582, month: 10, day: 15, hours: 0, minutes: 0, seconds: 0), 5),  // Friday
        (DateTime(year: 2026, month: 11, day: 22, hours: 0, minutes: 0, seconds: 0), 7),  // Sunday
    ])
    func dayOfWeekIsMondayOne(time: DateTime, weekday: Int) {
        #expect(time.dayOfWeek == weekday)
    }

    @Test func addingMinutesCarriesAcrossMonthsAndKeepsSeconds() {
        let start = DateTime(year: 2023, month: 1, day: 31, hours: 23, minutes: 59, seconds: 42)
        #expect(start.adding(minutes: 1) == DateTime(year: 2023, month: 2, day: 1, hours: 0, minutes: 0, seconds: 42))
        #expect(
            start.adding(minutes: -(31 * 1440))
                == DateTime(year: 2022, month: 12, day: 31, hours: 23, minutes: 59, seconds: 42)
        )
        #expect(start.adding(minutes: 0) == start)
        // A day past the month's end, which the range check allows, carries into the next month.
        #expect(
            DateTime(year: 2023, month: 2, day: 31, hours: 0, minutes: 0, seconds: 0).adding(minutes: 0)
                == DateTime(year: 2023, month: 3, day: 3, hours: 0, minutes: 0, seconds: 0)
        )
    }

    @Test func encodesSevenLittleEndianOctets() throws {
        #expect(DateTime.example.bytes == DateTime.exampleBytes)
        #expect(try DateTime.decode(DateTime.example.bytes) == .example)
    }
}
