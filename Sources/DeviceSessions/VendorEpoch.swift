import BridgeFoundation
public import Foundation

/// The instant a device clock counts its seconds from, as a profile writes it: `"2010-01-01T00:00:00Z"` or
/// `"2000-01-01T00:00:00+08:00"` (an ISO 8601 date and time with an explicit zone, `Z` or `±hh:mm`).
///
/// Used by frame fields (`"epoch"` on `epoch32le`/`epoch32be`) and session templates (`{time:epoch@…}`), so a
/// vendor clock that counts from 2010, or from midnight China time, reads and writes the right instant.
public struct VendorEpoch: Sendable, Hashable, CustomStringConvertible {
    /// The base instant.
    public var base: Date
    /// The text it was read from.
    public var description: String

    /// Seconds since 1970-01-01T00:00:00Z.
    public static let unix = VendorEpoch(base: Date(timeIntervalSince1970: 0), description: "1970-01-01T00:00:00Z")

    public init(base: Date, description: String) {
        self.base = base
        self.description = description
    }

    /// Reads `YYYY-MM-DDThh:mm:ss` followed by `Z` or `±hh:mm`; nil when the text is not that.
    public init?(_ text: String) {
        let characters = Array(text.utf8)
        guard characters.count == 20 || characters.count == 25 else { return nil }
        func number(_ from: Int, _ count: Int) -> Int? {
            var value = 0
            for index in from..<from + count {
                let character = characters[index]
                guard character >= UInt8(ascii: "0"), character <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(character - UInt8(ascii: "0"))
            }
            return value
        }
        func literal(_ index: Int, _ character: Character) -> Bool { characters[index] == character.asciiValue }
        guard literal(4, "-"), literal(7, "-"), literal(10, "T"), literal(13, ":"), literal(16, ":"),
            let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
            let hours = number(11, 2), let minutes = number(14, 2), let seconds = number(17, 2),
            (1...12).contains(month), (1...CivilDate.daysInMonth(year: year, month: month)).contains(day),
            hours < 24, minutes < 60, seconds < 60
        else { return nil }
        var zoneSeconds = 0
        if characters.count == 20 {
            guard literal(19, "Z") else { return nil }
        } else {
            guard literal(19, "+") || literal(19, "-"), literal(22, ":"), let zoneHours = number(20, 2),
                let zoneMinutes = number(23, 2), zoneHours < 15, zoneMinutes < 60
            else { return nil }
            zoneSeconds = (zoneHours * 3600 + zoneMinutes * 60) * (literal(19, "-") ? -1 : 1)
        }
        let day1970 =
            CivilDate.dayNumber(year: year, month: month, day: day)
            - CivilDate.dayNumber(year: 1970, month: 1, day: 1)
        let local = Double(day1970) * 86_400 + Double(hours * 3600 + minutes * 60 + seconds)
        self.init(base: Date(timeIntervalSince1970: local - Double(zoneSeconds)), description: text)
    }

    /// The instant `seconds` after the base.
    public func instant(_ seconds: Int64) -> Date { base.addingTimeInterval(Double(seconds)) }

    /// Whole seconds from the base to `date` (never negative).
    public func seconds(at date: Date) -> Int64 { max(0, Int64(date.timeIntervalSince(base).rounded(.down))) }
}
