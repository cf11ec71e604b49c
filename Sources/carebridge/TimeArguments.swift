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

    /// `2026-11-10 08:00` (seconds when not zero) in `zone`; a wall-clock time that occurs twice (the hour
    /// repeated when clocks go back) carries its offset, `2026-10-25 02:30+02:00`, so the two are told apart.
    static func short(_ date: Date, zone: TimeZone) -> String {
        let iso = Timestamp.format(date, in: zone)
        let seconds = iso.dropFirst(17).prefix(2)
        let text = String(iso.prefix(10)) + " " + String(iso.dropFirst(11).prefix(seconds == "00" ? 5 : 8))
        return isRepeated(date, zone: zone) ? text + String(iso.suffix(6)) : text
    }

    /// True when another instant within a day shows the same wall-clock time in `zone` (a fall-back hour).
    static func isRepeated(_ date: Date, zone: TimeZone) -> Bool {
        let before = zone.secondsFromGMT(for: date.addingTimeInterval(-86_400))
        let after = zone.secondsFromGMT(for: date.addingTimeInterval(86_400))
        let shift = TimeInterval(abs(before - after))
        guard shift > 0 else { return false }
        let offset = zone.secondsFromGMT(for: date)
        return [date.addingTimeInterval(-shift), date.addingTimeInterval(shift)].contains { other in
            let otherOffset = zone.secondsFromGMT(for: other)
            return otherOffset != offset
                && other.addingTimeInterval(TimeInterval(otherOffset)) == date.addingTimeInterval(TimeInterval(offset))
        }
    }
}
