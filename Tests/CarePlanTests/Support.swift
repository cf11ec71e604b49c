import CarePlan
import Foundation

let utc = TimeZone(secondsFromGMT: 0)!
let berlin = TimeZone(identifier: "Europe/Berlin")!
let newYork = TimeZone(identifier: "America/New_York")!

/// `2026-03-29T08:00:00` read as a wall-clock time (test shorthand; crashes on a typo).
func wall(_ text: String) -> WallClockTime {
    try! WallClockTime(parsing: text)
}

/// An instant written as UTC text, e.g. `2026-03-29T06:00:00`.
func instant(_ text: String) -> Date {
    wall(text).date(in: utc)
}

/// An instant written as a wall-clock time in `zone`.
func instant(_ text: String, _ zone: TimeZone) -> Date {
    wall(text).date(in: zone)
}

/// The wall-clock text an instant shows in `zone`.
func local(_ date: Date, _ zone: TimeZone) -> String {
    WallClockTime(date, in: zone).description
}
