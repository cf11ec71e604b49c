public import Foundation

/// One schedule evaluated in one zone, for many queries in a row (matching a batch of samples): it keeps the
/// zone's offsets and month steps it has computed. The `Schedule` methods build one per call.
///
/// Not thread-safe (it caches as it goes): use one per schedule per task or thread.
public final class ScheduleEvaluator {
    public let schedule: Schedule
    /// The zone the schedule is evaluated in (its fixed zone, or the bridge zone for floating schedules).
    public let zone: TimeZone
    private let engine: ScheduleEngine

    public init(_ schedule: Schedule, bridgeZone: TimeZone) {
        self.schedule = schedule
        self.zone = schedule.timeZonePolicy.zone(bridge: bridgeZone)
        self.engine = ScheduleEngine(schedule, zone: zone)
    }

    /// See ``Schedule/events(from:to:bridgeZone:)``.
    public func events(from: Date, to: Date) -> [ScheduledEvent] {
        engine.events(from: from.since1970, to: to.since1970)
    }

    /// See ``Schedule/event(occurrence:bridgeZone:)``.
    public func event(occurrence: Int) -> ScheduledEvent? {
        engine.event(occurrence: occurrence)
    }

    /// See ``Schedule/events(containing:bridgeZone:)``.
    public func events(containing instant: Date) -> [ScheduledEvent] {
        let t = instant.since1970
        // An all-day window's inclusive end is 23:59:59 but it contains instants up to the next midnight,
        // so look one second further back than the overlap query would.
        return engine.events(from: t - 1, to: t.nextUp).filter { $0.contains(instant) }
    }

    /// See ``Schedule/occurrenceCount(before:bridgeZone:)``.
    public func occurrenceCount(before: Date) -> Int {
        engine.countWindows(before: before.since1970)
    }
}

@available(*, unavailable)
extension ScheduleEvaluator: Sendable {}
