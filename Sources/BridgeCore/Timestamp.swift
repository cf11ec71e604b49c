import BridgeFoundation
public import Foundation
public import GATTDecoding

/// ISO-8601 formatting and parsing with explicit zones, for output, keys and user input.
public enum Timestamp {
    /// The calendar years CareBridge reads and stores: 1900 through 9999 (proleptic Gregorian, as ISO-8601).
    ///
    /// Every time that comes in (command-line options, plan files, recording headers and `t`, manual readings)
    /// is checked against it, so no conversion downstream can overflow and no reading lands before the
    /// Gregorian reform, where Foundation's calendar (Julian before 1582) and ISO-8601 disagree by days.
    public static let supportedYears: ClosedRange<Int> = 1900...9999

    /// 1900-01-01T00:00:00Z …< 10000-01-01T00:00:00Z: the instants whose UTC year is in ``supportedYears``.
    public static let supportedInstants: Range<Double> =
        Double(
            CivilDate.dayNumber(year: 1900, month: 1, day: 1) * 86_400
        )..<Double(CivilDate.dayNumber(year: 10_000, month: 1, day: 1) * 86_400)

    /// Whether `date` lies in ``supportedInstants`` (finite, UTC year 1900…9999).
    public static func isSupported(_ date: Date) -> Bool {
        supportedInstants.contains(date.timeIntervalSince1970)
    }

    /// The supported range in words, for error messages.
    public static let supportedRangeDescription = "1900-01-01 through 9999-12-31"

    /// Milliseconds since 1970 of `date`, rounded, clamped into ``supportedInstants`` (a NaN counts as 1970):
    /// formatting never traps on a time that slipped past the checks.
    static func clampedMilliseconds(_ date: Date) -> Int64 {
        let seconds = date.timeIntervalSince1970
        guard !seconds.isNaN else { return 0 }
        let clamped = min(max(seconds, supportedInstants.lowerBound), supportedInstants.upperBound - 0.001)
        return Int64((clamped * 1000).rounded())
    }

    /// `2023-12-25T14:30:45+01:00` in `zone` (milliseconds added when the instant has a fraction).
    public static func format(_ date: Date, in zone: TimeZone) -> String {
        let offset = zone.secondsFromGMT(for: date)
        return format(date, offsetSeconds: offset)
    }

    /// A UTC form used inside idempotency keys: `2023-12-25T13:30:45.000Z`.
    public static func utcKey(_ date: Date) -> String {
        // Fast path (every key is built with this): the 24 characters written straight into the string.
        let milliseconds = clampedMilliseconds(date)
        var days = milliseconds / 86_400_000
        var millisOfDay = milliseconds % 86_400_000
        if millisOfDay < 0 {
            millisOfDay += 86_400_000
            days -= 1
        }
        let (year, month, day) = CivilDate.civil(dayNumber: days)
        guard (0...9999).contains(year) else {
            let text = format(date, offsetSeconds: 0, alwaysMilliseconds: true)
            return String(text.dropLast(6)) + "Z"
        }
        let seconds = Int(millisOfDay / 1000)
        let fields: [(Int, Int)] = [
            (year, 4), (month, 2), (day, 2), (seconds / 3600, 2), (seconds / 60 % 60, 2), (seconds % 60, 2),
            (Int(millisOfDay % 1000), 3),
        ]
        let separators: [UInt8] = [
            UInt8(ascii: "-"), UInt8(ascii: "-"), UInt8(ascii: "T"), UInt8(ascii: ":"), UInt8(ascii: ":"),
            UInt8(ascii: "."), UInt8(ascii: "Z"),
        ]
        return String(unsafeUninitializedCapacity: 24) { buffer in
            var position = 0
            for (index, (value, width)) in fields.enumerated() {
                var remaining = value
                for digit in stride(from: width - 1, through: 0, by: -1) {
                    buffer[position + digit] = UInt8(ascii: "0") + UInt8(remaining % 10)
                    remaining /= 10
                }
                position += width
                buffer[position] = separators[index]
                position += 1
            }
            return position
        }
    }

    /// `2023-12-25T14:30:45+01:00` for a known UTC offset (seconds east of UTC).
    ///
    /// An instant whose local time would leave the supported years (9999-12-31T23:59:59Z east of UTC is in
    /// year 10000, which four-digit ISO-8601 and FHIR cannot hold; 1900-01-01T00:00Z west of it in 1899, which
    /// would not read back) is written in UTC: the same instant, with offset +00:00.
    public static func format(_ date: Date, offsetSeconds: Int, alwaysMilliseconds: Bool = false) -> String {
        let utc = clampedMilliseconds(date)
        let local = utc + Int64(offsetSeconds) * 1000
        let offsetSeconds = supportedInstants.contains(Double(local) / 1000) ? offsetSeconds : 0
        let milliseconds = utc + Int64(offsetSeconds) * 1000
        var days = milliseconds / 86_400_000
        var millisOfDay = milliseconds % 86_400_000
        if millisOfDay < 0 {
            millisOfDay += 86_400_000
            days -= 1
        }
        let (year, month, day) = CivilDate.civil(dayNumber: days)
        let seconds = millisOfDay / 1000
        let fraction = millisOfDay % 1000
        var text = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T"
        text += "\(pad(Int(seconds / 3600), 2)):\(pad(Int(seconds / 60 % 60), 2)):\(pad(Int(seconds % 60), 2))"
        if fraction != 0 || alwaysMilliseconds { text += ".\(pad(Int(fraction), 3))" }
        let sign = offsetSeconds < 0 ? "-" : "+"
        let absolute = abs(offsetSeconds)
        text += "\(sign)\(pad(absolute / 3600, 2)):\(pad(absolute / 60 % 60, 2))"
        return text
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// Resolves a zone-less wall-clock time in `zone`.
    ///
    /// In a DST gap the time is moved forward by the gap; in a repeated hour the earlier instant is taken.
    public static func date(
        year: Int,
        month: Int,
        day: Int,
        hour: Int = 0,
        minute: Int = 0,
        second: Int = 0,
        nanosecond: Int = 0,
        in zone: TimeZone
    ) -> Date? {
        // Foundation's calendar is lenient (February 31 becomes March 3) and Julian before 1582: check first.
        guard supportedYears.contains(year), (1...12).contains(month),
            (1...CivilDate.daysInMonth(year: year, month: month)).contains(day), (0...23).contains(hour),
            (0...59).contains(minute), (0...59).contains(second), (0..<1_000_000_000).contains(nanosecond)
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let components = DateComponents(
            year: year,
            month: month,
            day: day,
            hour: hour,
            minute: minute,
            second: second,
            nanosecond: nanosecond
        )
        return calendar.date(from: components)
    }

    /// Why user-supplied time text could not be read.
    public struct ParseError: Error, Sendable, CustomStringConvertible {
        public var text: String
        /// What is wrong beyond the shape (an impossible date, a year outside the supported range), if known.
        public var reason: String?

        public init(text: String, reason: String? = nil) {
            self.text = text
            self.reason = reason
        }

        public var description: String {
            if let reason { return "cannot read '\(text)' as a time: \(reason)" }
            return "cannot read '\(text)' as a time: use ISO-8601 such as 2026-11-20, 2026-11-20T07:30, "
                + "2026-11-20T07:30:00+01:00 or 2026-11-20T06:30:00Z"
        }
    }

    /// Why these calendar fields name no real time in ``supportedYears``, or nil when they do.
    public static func fieldProblem(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> String? {
        guard supportedYears.contains(year) else {
            return "year \(year) is outside the supported range \(supportedRangeDescription)"
        }
        guard (1...12).contains(month) else { return "month \(month) is outside 1…12" }
        let length = CivilDate.daysInMonth(year: year, month: month)
        guard (1...length).contains(day) else {
            return "day \(day) is outside 1…\(length) for \(year)-\(pad(month, 2))"
        }
        guard (0...23).contains(hour) else { return "hour \(hour) is outside 0…23" }
        guard (0...59).contains(minute) else { return "minute \(minute) is outside 0…59" }
        guard (0...59).contains(second) else { return "second \(second) is outside 0…59" }
        return nil
    }

    /// ``parse(_:in:)`` plus the forms people type at a prompt: `today` and `yesterday` (midnight in `zone`)
    /// and a bare `H:MM` or `HH:MM[:SS]` (that wall-clock time today in `zone`), "today" being the day of `now` in `zone`.
    public static func parse(_ text: String, in zone: TimeZone, now: Date) throws(ParseError) -> Date {
        let input = text.trimmingSpaces.lowercased()
        let today = String(format(now, in: zone).prefix(10))
        switch input {
        case "today": return try parse(today, in: zone)
        case "yesterday":
            let utf8 = Array(today.utf8)
            func number(_ range: Range<Int>) -> Int { Int(String(decoding: utf8[range], as: UTF8.self)) ?? 0 }
            let (year, month, day) = CivilDate.civil(
                dayNumber: CivilDate.dayNumber(year: number(0..<4), month: number(5..<7), day: number(8..<10)) - 1
            )
            return try parse("\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))", in: zone)
        default:
            // `7:30` as people write it is `07:30`.
            let time = input.dropFirst().first == ":" ? "0" + input : input
            let isBareTime =
                (time.count == 5 || time.count == 8) && time.dropFirst(2).first == ":"
                && time.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ":") }
            guard isBareTime else { return try parse(text, in: zone) }
            return try parse(today + "T" + time, in: zone)
        }
    }

    /// Whether `text` names a whole day (`YYYY-MM-DD`, `today`, `yesterday`) rather than an instant.
    public static func namesWholeDay(_ text: String) -> Bool {
        let input = text.trimmingSpaces.lowercased()
        return input == "today" || input == "yesterday" || input.utf8.count == 10
    }

    /// Parses `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM[:SS[.fff]]` with optional `Z` or `±HH:MM`.
    /// Times without an offset are wall-clock times in `zone`.
    public static func parse(_ text: String, in zone: TimeZone) throws(ParseError) -> Date {
        let input = text.trimmingSpaces
        let utf8 = Array(input.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= utf8.count, !range.isEmpty else { return nil }
            var value = 0
            for index in range {
                let byte = utf8[index]
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        func expect(_ index: Int, _ character: Character) -> Bool {
            index < utf8.count && utf8[index] == character.asciiValue!
        }
        guard let year = number(0..<4), expect(4, "-"), let month = number(5..<7), expect(7, "-"),
            let day = number(8..<10)
        else { throw ParseError(text: text) }
        var hour = 0
        var minute = 0
        var second = 0
        var nanosecond = 0
        var index = 10
        if index < utf8.count {
            guard expect(10, "T") || expect(10, " "), let h = number(11..<13), expect(13, ":"),
                let m = number(14..<16)
            else { throw ParseError(text: text) }
            hour = h
            minute = m
            index = 16
            if expect(index, ":") {
                guard let s = number(17..<19) else { throw ParseError(text: text) }
                second = s
                index = 19
                if expect(index, ".") {
                    var end = index + 1
                    while end < utf8.count, utf8[end] >= 48, utf8[end] <= 57 { end += 1 }
                    guard end > index + 1 else { throw ParseError(text: text) }
                    let digits = String(decoding: utf8[(index + 1)..<min(end, index + 10)], as: UTF8.self)
                    nanosecond = (Int(digits) ?? 0) * Int(pow(10.0, Double(9 - digits.count)))
                    index = end
                }
            }
        }
        if let problem = fieldProblem(year: year, month: month, day: day, hour: hour, minute: minute, second: second) {
            throw ParseError(text: text, reason: problem)
        }
        var resolvedZone = zone
        if index < utf8.count {
            if expect(index, "Z"), index + 1 == utf8.count {
                resolvedZone = TimeZone(secondsFromGMT: 0)!
            } else if expect(index, "+") || expect(index, "-"), let oh = number((index + 1)..<(index + 3)) {
                var om = 0
                if expect(index + 3, ":"), let minutes = number((index + 4)..<(index + 6)), index + 6 == utf8.count {
                    om = minutes
                } else if let minutes = number((index + 3)..<(index + 5)), index + 5 == utf8.count {
                    om = minutes
                } else if index + 3 != utf8.count {
                    throw ParseError(text: text)
                }
                let sign = expect(index, "-") ? -1 : 1
                guard oh <= 18, om < 60, let offsetZone = TimeZone(secondsFromGMT: sign * (oh * 3600 + om * 60)) else {
                    throw ParseError(text: text, reason: "the offset must be within ±18:00")
                }
                resolvedZone = offsetZone
            } else {
                throw ParseError(text: text)
            }
        }
        guard
            let date = Timestamp.date(
                year: year,
                month: month,
                day: day,
                hour: hour,
                minute: minute,
                second: second,
                nanosecond: nanosecond,
                in: resolvedZone
            )
        else { throw ParseError(text: text) }
        guard isSupported(date) else {
            throw ParseError(text: text, reason: "outside the supported range \(supportedRangeDescription) (UTC)")
        }
        return date
    }
}

extension Timestamp {
    /// Resolves a wall-clock time given as seconds since 1970-01-01T00:00 *local* in `zone`.
    ///
    /// Same policy as ``date(year:month:day:hour:minute:second:nanosecond:in:)``: a time in a DST gap is moved
    /// forward by the gap, a time in a repeated hour resolves to the earlier instant. Assumes at most one
    /// offset change within a day either side, which holds for every zone in the IANA database.
    public static func date(localSeconds local: Int64, in zone: TimeZone) -> Date {
        Date(timeIntervalSince1970: Double(ZoneOffsetMemo.shared.instant(ofLocal: local, in: zone)))
    }
}

extension DateTime {
    /// The instant this device wall-clock time names in `zone`; nil when the device did not know the date.
    public func date(in zone: TimeZone) -> Date? {
        guard !isUnknown else { return nil }
        let local =
            CivilDate.dayNumber(year: year, month: month, day: day) * 86_400
            + Int64(hours * 3600 + minutes * 60 + seconds)
        return Timestamp.date(localSeconds: local, in: zone)
    }

    /// The wall-clock time of `instant` in `zone`, to the whole second (rounded down): the inverse of
    /// ``date(in:)``, for writing a device clock or turning a UTC epoch field into the wall clock samples carry.
    public init(wallClockOf instant: Date, in zone: TimeZone) {
        let utc = Int64(instant.timeIntervalSince1970.rounded(.down))
        var (days, seconds) = (utc + ZoneOffsetMemo.shared.offset(at: utc, in: zone)).quotientAndRemainder(
            dividingBy: 86_400
        )
        if seconds < 0 {
            days -= 1
            seconds += 86_400
        }
        let civil = CivilDate.civil(dayNumber: days)
        let second = Int(seconds)
        self.init(
            year: civil.year,
            month: civil.month,
            day: civil.day,
            hours: second / 3600,
            minutes: second / 60 % 60,
            seconds: second % 60
        )
    }
}
