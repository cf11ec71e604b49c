import CareStore
import Foundation

/// How the signed-in user reads instants: in their own zone (the bridge's when they chose none), with that zone
/// named whenever it is not the plan's, and an event's window also in the plan's own time, so that a daughter in
/// New York cannot misread her father's Berlin dose. Only instants move: the days a page shows stay the patient's
/// plan days (health data never moves to another day because of who looks at it).
struct ShownTime: Sendable {
    /// The zone the user reads times in.
    let zone: TimeZone
    /// The plans' zone: the bridge's.
    let planZone: TimeZone

    init(user: CareUser?, bridgeZone: TimeZone) {
        zone = user?.timeZone ?? bridgeZone
        planZone = bridgeZone
    }

    /// Whether the user's zone is not `reference` (by IANA name: `Europe/Paris` is named beside a Berlin plan).
    func differs(from reference: TimeZone) -> Bool {
        zone.identifier != reference.identifier
    }

    /// `New York` for America/New_York, `UTC` for UTC; an `Etc/` zone keeps its whole name (`Etc/GMT+5` is five
    /// hours behind UTC: `GMT+5` alone would read the wrong way round).
    static func placeName(_ zone: TimeZone) -> String {
        guard !zone.identifier.hasPrefix("Etc/") else { return zone.identifier }
        return zone.identifier.split(separator: "/").last.map { $0.replacingOccurrences(of: "_", with: " ") }
            ?? zone.identifier
    }

    /// `07:05`, or `01:05 New York time` when the user's zone is not `reference` (the plan's by default).
    func time(_ date: Date, reference: TimeZone? = nil) -> String {
        let text = CalendarDay.time(date, zone: zone)
        return differs(from: reference ?? planZone) ? "\(text) \(Self.placeName(zone)) time" : text
    }

    /// `Fri 27 Nov 2026 07:05`: the date in the user's zone too, for instants listed across days.
    func dateTime(_ date: Date) -> String {
        "\(CalendarDay(containing: date, zone: zone).shortLabel(zone: zone)) \(time(date))"
    }

    /// `Friday 27 November 2026 07:05`.
    func longDateTime(_ date: Date) -> String {
        "\(CalendarDay(containing: date, zone: zone).label(zone: zone)) \(time(date))"
    }

    /// An event's window: `08:00–10:00` in the plan's zone; in another, the user's time first and the plan's
    /// beside it, `02:00–04:00 New York time (08:00–10:00 Berlin time)`, with the user's date in front when
    /// the window starts on another date there (`Thu 26 Nov 2026 21:00–21:30 …`).
    func window(start: Date, end: Date, planZone eventZone: TimeZone) -> String {
        let plan = "\(CalendarDay.time(start, zone: eventZone))–\(CalendarDay.time(end, zone: eventZone))"
        guard differs(from: eventZone) else { return plan }
        let userDay = CalendarDay(containing: start, zone: zone)
        let date =
            userDay.key == CalendarDay(containing: start, zone: eventZone).key
            ? "" : "\(userDay.shortLabel(zone: zone)) "
        return "\(date)\(CalendarDay.time(start, zone: zone))–\(CalendarDay.time(end, zone: zone)) "
            + "\(Self.placeName(zone)) time (\(plan) \(Self.placeName(eventZone)) time)"
    }

    /// The sentence that says which zone the page's times are in and whose days it shows, with both zones'
    /// offsets at `at` (they differ across a change to or from summer time); nil when the user reads the plan's
    /// zone. `oneDay`: the page shows one plan day.
    func note(patientName: String, at: Date, oneDay: Bool = false) -> String? {
        guard differs(from: planZone) else { return nil }
        let offset = zone.abbreviation(for: at).map { ", \($0)" } ?? ""
        let planOffset = planZone.abbreviation(for: at).map { ", \($0)" } ?? ""
        return "Times are in \(Self.placeName(zone)) time (\(zone.identifier)\(offset)), your zone. "
            + "\(oneDay ? "The day is" : "The days are") \(patientName)'s plan "
            + "\(oneDay ? "day" : "days") in \(planZone.identifier)\(planOffset)."
    }
}
