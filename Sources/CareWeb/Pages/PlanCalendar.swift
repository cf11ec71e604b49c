import CarePlan
import CareStore
import Foundation

/// A patient's upcoming care-plan events as an iCalendar feed (RFC 5545), for Home Assistant's calendar and any
/// phone calendar that subscribes to it.
///
/// One `VEVENT` per event: `UID` the store's stable event id (`<task version>-<occurrence>@carebridge`, the same
/// on every fetch), timed events in UTC (`DTSTART:…Z`, no `TZID` to resolve), all-day events as `VALUE=DATE` days
/// of the schedule's zone, an instant without `DTEND` (RFC 5545 §3.6.1: it ends when it starts); `SUMMARY` the
/// task's title, `DESCRIPTION` the schedule element's text, `STATUS:CANCELLED` never (a deleted task's events
/// leave the feed). Text is escaped (§3.3.11), lines end in CRLF and are folded at 75 octets without splitting a
/// UTF-8 character (§3.1).
struct PlanCalendar {
    /// `X-WR-CALNAME`: what a calendar app shows as the feed's name.
    var name: String
    var events: [CareEvent]
    /// `DTSTAMP` of every event: when the feed was made.
    var stamp: Date

    /// The feed's text.
    func text() -> String {
        var lines = [
            "BEGIN:VCALENDAR",
            "VERSION:2.0",
            "PRODID:-//CareBridge//Care plan//EN",
            "CALSCALE:GREGORIAN",
            "METHOD:PUBLISH",
            "X-WR-CALNAME:" + Self.escaped(name),
        ]
        for event in events {
            lines.append("BEGIN:VEVENT")
            lines.append("UID:\(event.key.taskVersion.uuidString.lowercased())-\(event.occurrence)@carebridge")
            lines.append("DTSTAMP:" + Self.utc(stamp))
            if event.isAllDay {
                lines.append("DTSTART;VALUE=DATE:" + Self.day(event.start, zone: event.timeZone))
                // The end is exclusive: the day after the last one.
                let calendar = Self.calendar(event.timeZone)
                let last = calendar.startOfDay(for: max(event.start, event.end.addingTimeInterval(-1)))
                let after = calendar.date(byAdding: .day, value: 1, to: last) ?? last.addingTimeInterval(86400)
                lines.append("DTEND;VALUE=DATE:" + Self.day(after, zone: event.timeZone))
            } else {
                lines.append("DTSTART:" + Self.utc(event.start))
                if event.end > event.start { lines.append("DTEND:" + Self.utc(event.end)) }
            }
            lines.append("SUMMARY:" + Self.escaped(event.title))
            if let text = event.text, !text.isEmpty { lines.append("DESCRIPTION:" + Self.escaped(text)) }
            lines.append("CATEGORIES:" + Self.escaped(event.kind.rawValue))
            lines.append("END:VEVENT")
        }
        lines.append("END:VCALENDAR")
        return lines.map(Self.folded).joined()
    }

    /// A TEXT value escaped (RFC 5545 §3.3.11): backslash, semicolon, comma, and line breaks as `\n`.
    static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "\\": result += "\\\\"
            case ";": result += "\\;"
            case ",": result += "\\,"
            case "\r\n", "\n", "\r": result += "\\n"
            default: result.append(character)
            }
        }
        return result
    }

    /// A content line folded (RFC 5545 §3.1): at most 75 octets a line, continued with CRLF and a space, never
    /// inside a UTF-8 character; ends in CRLF.
    static func folded(_ line: String) -> String {
        var result = ""
        var octets = 0
        for scalar in line.unicodeScalars {
            let size = String(scalar).utf8.count
            if octets + size > 75 {
                result += "\r\n "
                octets = 1
            }
            result.unicodeScalars.append(scalar)
            octets += size
        }
        return result + "\r\n"
    }

    /// `YYYYMMDDTHHMMSSZ`.
    static func utc(_ date: Date) -> String {
        let parts = calendar(.gmt).dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(
            format: "%04d%02d%02dT%02d%02d%02dZ",
            parts.year ?? 0,
            parts.month ?? 0,
            parts.day ?? 0,
            parts.hour ?? 0,
            parts.minute ?? 0,
            parts.second ?? 0
        )
    }

    /// `YYYYMMDD` of `date`'s day in `zone`.
    static func day(_ date: Date, zone: TimeZone) -> String {
        let parts = calendar(zone).dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d%02d%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    private static func calendar(_ zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }
}
