import CarePlan
import Foundation

/// One calendar day in the bridge's zone: `2026-11-27`, its start and end instants, and how people read it.
struct CalendarDay: Sendable, Hashable {
    let key: String
    let start: Date
    let end: Date

    init(containing date: Date, zone: TimeZone) {
        let wall = WallClockTime(date, in: zone).startOfDay
        self.init(wall: wall, zone: zone)
    }

    /// The day named `YYYY-MM-DD`; nil when the text is not a date.
    init?(key text: String, zone: TimeZone) {
        let parts = text.split(separator: "-")
        guard text.count == 10, parts.count == 3, let year = Int(parts[0]), let month = Int(parts[1]),
            let day = Int(parts[2]), (1900...9999).contains(year)
        else { return nil }
        let wall = WallClockTime(year: year, month: month, day: day)
        guard wall.validationProblem == nil else { return nil }
        self.init(wall: wall, zone: zone)
    }

    private init(wall: WallClockTime, zone: TimeZone) {
        key = String(format: "%04d-%02d-%02d", wall.year, wall.month, wall.day)
        start = wall.date(in: zone)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        end = calendar.date(byAdding: .day, value: 1, to: start) ?? start.addingTimeInterval(86400)
    }

    func adding(days: Int, zone: TimeZone) -> CalendarDay {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let moved = calendar.date(byAdding: .day, value: days, to: start.addingTimeInterval(12 * 3600)) ?? start
        return CalendarDay(containing: moved, zone: zone)
    }

    /// `Friday 27 November 2026`.
    func label(zone: TimeZone) -> String {
        formatted("EEEE d MMMM yyyy", zone: zone)
    }

    /// `Fri 27 Nov 2026`, for tables.
    func shortLabel(zone: TimeZone) -> String {
        formatted("EEE d MMM yyyy", zone: zone)
    }

    /// The day (its noon, safe from DST edges) in a British English date format.
    private func formatted(_ format: String, zone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_GB")
        formatter.timeZone = zone
        formatter.dateFormat = format
        return formatter.string(from: start.addingTimeInterval(12 * 3600))
    }

    /// `07:05` in the zone.
    static func time(_ date: Date, zone: TimeZone) -> String {
        let wall = WallClockTime(date, in: zone)
        return String(format: "%02d:%02d", wall.hour, wall.minute)
    }
}
