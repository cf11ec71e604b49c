import BridgeCore
import BridgeFoundation
public import Foundation

/// A zone-less calendar date and time of day (proleptic Gregorian), as written in a plan file.
///
/// Schedules store their element starts and ends as wall-clock times and resolve them in the zone of the
/// schedule's ``TimeZonePolicy`` when events are computed, so a floating schedule keeps "08:00" when the
/// bridge moves to another zone.
public struct WallClockTime: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int

    /// A wall-clock time; fields are not range-checked here (see ``validationProblem``).
    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// Why text could not be read as a wall-clock time.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        public var text: String
        public var reason: String
        public var description: String { "cannot read '\(text)' as a wall-clock time: \(reason)" }
    }

    /// Parses `2026-11-01T07:30:00`, `2026-11-01T07:30` or `2026-11-01` (midnight). No zone or offset:
    /// the time is interpreted in the schedule's zone.
    /// - Throws: ``ParseError`` for any other shape or an impossible date or time.
    public init(parsing text: String) throws(ParseError) {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        func at(_ index: Int, _ ascii: UInt8) -> Bool { index < bytes.count && bytes[index] == ascii }
        let shape = "expected YYYY-MM-DD, YYYY-MM-DDTHH:MM or YYYY-MM-DDTHH:MM:SS without a zone"
        guard let year = number(0..<4), at(4, 0x2D), let month = number(5..<7), at(7, 0x2D),
            let day = number(8..<10)
        else { throw ParseError(text: text, reason: shape) }
        var hour = 0
        var minute = 0
        var second = 0
        if bytes.count > 10 {
            guard at(10, 0x54) || at(10, 0x20), let h = number(11..<13), at(13, 0x3A), let m = number(14..<16)
            else { throw ParseError(text: text, reason: shape) }
            hour = h
            minute = m
            if bytes.count > 16 {
                guard at(16, 0x3A), let s = number(17..<19), bytes.count == 19 else {
                    throw ParseError(text: text, reason: shape)
                }
                second = s
            }
        }
        let value = WallClockTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        if let problem = value.validationProblem { throw ParseError(text: text, reason: problem) }
        self = value
    }

    /// Why the fields do not name a real date and time, or nil when they do.
    public var validationProblem: String? {
        guard Timestamp.supportedYears.contains(year) else {
            return "year \(year) is outside the supported range \(Timestamp.supportedRangeDescription)"
        }
        guard (1...12).contains(month) else { return "month \(month) is outside 1…12" }
        let length = CivilDate.daysInMonth(year: year, month: month)
        guard (1...length).contains(day) else { return "day \(day) is outside 1…\(length) for \(year)-\(month)" }
        guard (0...23).contains(hour) else { return "hour \(hour) is outside 0…23" }
        guard (0...59).contains(minute) else { return "minute \(minute) is outside 0…59" }
        guard (0...59).contains(second) else { return "second \(second) is outside 0…59" }
        return nil
    }

    /// The same day at 00:00:00.
    public var startOfDay: WallClockTime { WallClockTime(year: year, month: month, day: day) }

    /// The same day at `hour:minute:second`.
    public func at(hour: Int, minute: Int = 0, second: Int = 0) -> WallClockTime {
        WallClockTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// Day of the week, 1 = Sunday … 7 = Saturday (Foundation's numbering).
    public var weekday: Int { Int((dayNumber + 4).floorMod(7)) + 1 }

    /// `2026-11-01T07:30:00`.
    public var description: String {
        "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))"
    }

    /// The instant this wall-clock time names in `zone`. In a DST gap the time moves forward by the gap
    /// (02:30 on a spring-forward day → 03:30); in a repeated hour the earlier instant is taken.
    public func date(in zone: TimeZone) -> Date {
        Date(timeIntervalSince1970: ZoneResolver(zone).instant(ofLocal: localSeconds))
    }

    /// The wall-clock time `date` shows in `zone`.
    public init(_ date: Date, in zone: TimeZone) {
        let seconds = date.timeIntervalSince1970
        let local = Int64(seconds.rounded(.down)) + Int64(zone.secondsFromGMT(for: date))
        self.init(localSeconds: local)
    }

    public static func < (lhs: WallClockTime, rhs: WallClockTime) -> Bool {
        (lhs.year, lhs.month, lhs.day, lhs.hour, lhs.minute, lhs.second)
            < (rhs.year, rhs.month, rhs.day, rhs.hour, rhs.minute, rhs.second)
    }

    // MARK: - Codable (the plan-file text form)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            self = try WallClockTime(parsing: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

// MARK: - Local-timeline arithmetic

extension WallClockTime {
    /// Days since 1970-01-01 of this calendar date.
    var dayNumber: Int64 { CivilDate.dayNumber(year: year, month: month, day: day) }

    /// Seconds since 1970-01-01T00:00:00 on the zone-less local timeline.
    var localSeconds: Int64 {
        dayNumber * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    init(localSeconds: Int64) {
        let days = localSeconds.floorDiv(86_400)
        let secondOfDay = Int(localSeconds - days * 86_400)
        let (year, month, day) = CivilDate.civil(dayNumber: days)
        self.init(
            year: year,
            month: month,
            day: day,
            hour: secondOfDay / 3600,
            minute: secondOfDay / 60 % 60,
            second: secondOfDay % 60
        )
    }
}

private func pad(_ value: Int, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}
