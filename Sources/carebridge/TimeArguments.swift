import ArgumentParser
import BridgeCore
import Foundation

/// Reading and showing times on the command line, in the user's zone.
enum TimeArguments {
    /// Parses `--at`/`--from` style text; dates without a zone are wall-clock times in `zone`. Also `today`,
    /// `yesterday` and a bare `HH:MM` (today at that time).
    static func parse(_ text: String, option: String, zone: TimeZone, now: Date = Date()) throws -> Date {
        do {
            return try Timestamp.parse(text, in: zone, now: now)
        } catch {
            throw ValidationError("\(option): \(error.description)")
        }
    }

    /// Parses an interval end: a bare date (`2026-11-07`) means the end of that day, so `--to` is inclusive.
    static func parseEnd(_ text: String, option: String, zone: TimeZone) throws -> Date {
        let date = try parse(text, option: option, zone: zone)
        guard Timestamp.namesWholeDay(text) else { return date }
        return startOfDay(date.addingTimeInterval(36 * 3600), zone: zone)
    }

    /// Refuses a range that holds nothing: `--from` at or after `--to` (typed the wrong way round).
    static func checkOrder(_ start: Date?, _ end: Date?, from: String?, to: String?) throws {
        guard let start, let end, start >= end else { return }
        throw ValidationError(
            "--from \(from ?? "") is not before --to \(to ?? ""): the range is empty (the two swapped?)"
        )
    }

    static func startOfDay(_ date: Date, zone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar.startOfDay(for: date)
    }

    /// `2026-11-10 08:00` (seconds when not zero) in `zone`.
    static func short(_ date: Date, zone: TimeZone) -> String {
        let iso = Timestamp.format(date, in: zone)
        let seconds = iso.dropFirst(17).prefix(2)
        return String(iso.prefix(10)) + " " + String(iso.dropFirst(11).prefix(seconds == "00" ? 5 : 8))
    }
}
