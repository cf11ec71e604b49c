import BridgeCore
import BridgeFoundation
import Foundation
import GATTDecoding
import Testing

/// Impossible dates are errors, the supported range (1900…9999) is enforced, formatting never traps.
@Suite struct TimestampRangeTests {
    private let berlin = TimeZone(identifier: "Europe/Berlin")!

    @Test(arguments: [
        "2026-02-31T08:00", "2026-02-29", "2026-04-31", "2100-02-29", "2026-06-31T00:00:00Z", "2026-11-20T24:00",
        "2026-11-20T07:60", "2026-11-20T07:30:60", "2026-00-10", "2026-13-01", "2026-11-00",
    ])
    func impossibleDatesAreRefusedNotRolledOver(text: String) {
        #expect(throws: Timestamp.ParseError.self) { try Timestamp.parse(text, in: berlin) }
    }

    @Test func theErrorSaysWhatIsImpossible() {
        do {
            _ = try Timestamp.parse("2026-02-31T08:00", in: berlin)
            Issue.record("parsed")
        } catch {
            #expect(error.description.contains("day 31 is outside 1…28 for 2026-02"), "\(error)")
        }
    }

    @Test(arguments: ["0000-12-30", "1000-01-01", "1581-10-10", "1899-12-31T23:00", "1899-12-31T23:59:59Z"])
    func yearsBeforeTheSupportedRangeAreRefused(text: String) {
        #expect(throws: Timestamp.ParseError.self) { try Timestamp.parse(text, in: TimeZone(identifier: "UTC")!) }
    }

    @Test func theEdgesOfTheRangeParseAndFormatBackUnchanged() throws {
        let utc = TimeZone(identifier: "UTC")!
        let first = try Timestamp.parse("1900-01-01T00:00:00Z", in: utc)
        #expect(Timestamp.format(first, in: utc) == "1900-01-01T00:00:00+00:00")
        let last = try Timestamp.parse("9999-12-31T23:59:59Z", in: utc)
        #expect(Timestamp.format(last, in: utc) == "9999-12-31T23:59:59+00:00")
        // A local time whose UTC instant falls past 9999 is outside too.
        #expect(throws: Timestamp.ParseError.self) { try Timestamp.parse("9999-12-31T23:30-05:00", in: utc) }
        #expect(try Timestamp.parse("2024-02-29", in: berlin) == Date(timeIntervalSince1970: 1_709_161_200))
    }

    /// The last second of 9999 shown east of UTC would be year 10000 (FHIR and four-digit ISO-8601 cannot hold
    /// it); the first of 1900 shown west of UTC would be 1899 (which does not read back). Both are written in UTC,
    /// and every form reads back as the same instant.
    @Test(arguments: [
        ("9999-12-31T23:59:59Z", "Asia/Tokyo", "9999-12-31T23:59:59+00:00"),
        ("9999-12-31T23:59:59Z", "Pacific/Kiritimati", "9999-12-31T23:59:59+00:00"),
        ("9999-12-31T14:00:00Z", "Asia/Tokyo", "9999-12-31T23:00:00+09:00"),
        ("9999-12-31T23:59:59Z", "America/New_York", "9999-12-31T18:59:59-05:00"),
        ("1900-01-01T00:00:00Z", "America/New_York", "1900-01-01T00:00:00+00:00"),
        ("1900-01-01T00:00:00Z", "Asia/Tokyo", "1900-01-01T09:00:00+09:00"),
    ])
    func anInstantAtTheEdgeOfTheRangeIsWrittenInUTCRatherThanOutsideIt(
        instant: String,
        zone: String,
        expected: String
    ) throws {
        let utc = TimeZone(identifier: "UTC")!
        let date = try Timestamp.parse(instant, in: utc)
        let text = Timestamp.format(date, in: TimeZone(identifier: zone)!)
        #expect(text == expected)
        #expect(try Timestamp.parse(text, in: utc) == date)
    }

    @Test func foundationsLenientCalendarIsNotReachable() {
        #expect(Timestamp.date(year: 2026, month: 2, day: 31, in: berlin) == nil)
        #expect(Timestamp.date(year: 1500, month: 1, day: 1, in: berlin) == nil)
        #expect(Timestamp.date(year: 2026, month: 2, day: 28, in: berlin) != nil)
    }

    @Test(arguments: [1e17, -1e17, 1e300, -1e300, .infinity, -.infinity, .nan, 9.3e15, -9.3e15])
    func formattingAnyInstantNeverTraps(seconds: Double) {
        let date = Date(timeIntervalSince1970: seconds)
        #expect(Timestamp.utcKey(date).count >= 24)
        #expect(!Timestamp.format(date, in: berlin).isEmpty)
        #expect(!Timestamp.isSupported(date))
    }

    @Test func todayYesterdayAndABareTimeAreReadInTheZone() throws {
        // 2026-11-20T23:30Z is already 2026-11-21 in Berlin.
        let now = Date(timeIntervalSince1970: 1_795_217_400)
        #expect(try Timestamp.parse("today", in: berlin, now: now) == Timestamp.parse("2026-11-21", in: berlin))
        #expect(try Timestamp.parse("yesterday", in: berlin, now: now) == Timestamp.parse("2026-11-20", in: berlin))
        #expect(try Timestamp.parse("07:00", in: berlin, now: now) == Timestamp.parse("2026-11-21T07:00", in: berlin))
        #expect(
            try Timestamp.parse("07:00:30", in: berlin, now: now) == Timestamp.parse("2026-11-21T07:00:30", in: berlin)
        )
        // An hour without its leading zero, as people type it.
        #expect(try Timestamp.parse("7:30", in: berlin, now: now) == Timestamp.parse("2026-11-21T07:30", in: berlin))
        #expect(
            try Timestamp.parse("7:30:15", in: berlin, now: now) == Timestamp.parse("2026-11-21T07:30:15", in: berlin)
        )
        #expect(throws: Timestamp.ParseError.self) { try Timestamp.parse("7:3", in: berlin, now: now) }
        // Yesterday across a month and a year boundary.
        let newYear = try Timestamp.parse("2027-01-01T10:00", in: berlin)
        #expect(try Timestamp.parse("yesterday", in: berlin, now: newYear) == Timestamp.parse("2026-12-31", in: berlin))
        #expect(throws: Timestamp.ParseError.self) { try Timestamp.parse("25:00", in: berlin, now: now) }
        #expect(throws: Timestamp.ParseError.self) { try Timestamp.parse("tomorrow", in: berlin, now: now) }
        #expect(Timestamp.namesWholeDay("today") && Timestamp.namesWholeDay("2026-11-20"))
        #expect(!Timestamp.namesWholeDay("07:00"))
    }
}

/// The incremental SHA-256 that sample ids of one payload share.
@Suite struct IncrementalHashTests {
    @Test func rrIntervalSampleIdsAreTheHashOfTheirWholeKey() throws {
        // A Heart Rate notification with 40 RR intervals: every sample's id is still SHA-256 of its full key.
        var payload: [UInt8] = [0x10, 72]
        for index in 0..<40 { payload += [UInt8(index), 0x03] }
        let measurement = try HeartRateMeasurement.decode(payload)
        let context = SampleContext(
            receivedAt: Date(timeIntervalSince1970: 1_795_158_000.25),
            timeZone: TimeZone(identifier: "UTC")!,
            source: SampleSource(
                kind: .device,
                characteristic: BluetoothUUID(0x2A37),
                decoder: "heart-rate-measurement",
                device: DeviceIdentity(address: "C8:47:8C:00:00:01", name: "strap")
            ),
            payload: payload
        )
        var drafts: [SampleDraft] = []
        measurement.appendSamples(in: context, to: &drafts)
        let samples = drafts.map { QuantitySample($0) }
        #expect(samples.count == 41)
        for sample in samples {
            #expect(sample.id == SampleID.uuid(key: sample.idempotencyKey, milliseconds: sample.idMilliseconds))
        }
        #expect(Set(samples.map(\.id)).count == 41)
    }
}
