import CarePlan
import Foundation

/// The schedule-engine calls the store makes, in one place.
extension Schedule {
    /// Events overlapping `[from, to)`: end ≥ from and start < to (CareKit's overlap semantics).
    func storeEvents(from: Date, to: Date, zone: TimeZone) -> [ScheduledEvent] {
        events(from: from, to: to, bridgeZone: zone)
    }

    /// Events whose window contains `instant` (per `ScheduledEvent.contains`).
    func storeEvents(containing instant: Date, zone: TimeZone) -> [ScheduledEvent] {
        events(containing: instant, bridgeZone: zone).filter { $0.contains(instant) }
    }

    /// The event with this occurrence index, if the schedule has one.
    func storeEvent(occurrence: Int, zone: TimeZone) -> ScheduledEvent? {
        event(occurrence: occurrence, bridgeZone: zone)
    }
}
