import BridgeCore
import Foundation

/// ISO-8601 text with offset for many instants in one zone, asking the zone for its offset only when an
/// instant leaves the stretch of time the last answer covers (the zone lookup costs more than the formatting).
struct ZoneFormatter {
    let zone: TimeZone
    private var fixed: TimeZone
    private var validFrom = Double.infinity
    private var validUntil = -Double.infinity

    init(zone: TimeZone) {
        self.zone = zone
        self.fixed = zone
    }

    mutating func format(_ date: Date) -> String {
        let t = date.timeIntervalSince1970
        if !(validFrom <= t && t < validUntil) {
            let offset = zone.secondsFromGMT(for: date)
            fixed = TimeZone(secondsFromGMT: offset) ?? zone
            // Valid from this instant to the next transition; earlier instants ask again.
            validFrom = t
            validUntil = zone.nextDaylightSavingTimeTransition(after: date)?.timeIntervalSince1970 ?? .infinity
        }
        return Timestamp.format(date, in: fixed)
    }
}
