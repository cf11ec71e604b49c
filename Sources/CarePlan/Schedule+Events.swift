public import Foundation

/// Event generation (care-store-semantics §4): occurrence 0 at each element's start, windows per
/// ``EventDuration``, elements merged by window start with ties broken by element index, occurrences
/// numbered globally from the schedule's start. Every query costs the same however long ago the schedule
/// started (closed-form counting; month intervals walk at most one step per month).
extension Schedule {
    /// Events overlapping `[from, to)`: window start before `to` and window end at or after `from`
    /// (an event ending exactly at `from` is included). Sorted by start, then element index, then occurrence.
    ///
    /// The window must be finite: an open-ended schedule has events until year 9999.
    public func events(from: Date, to: Date, bridgeZone: TimeZone) -> [ScheduledEvent] {
        ScheduleEvaluator(self, bridgeZone: bridgeZone).events(from: from, to: to)
    }

    /// The event with this occurrence index, or nil when the schedule has fewer events.
    public func event(occurrence: Int, bridgeZone: TimeZone) -> ScheduledEvent? {
        ScheduleEvaluator(self, bridgeZone: bridgeZone).event(occurrence: occurrence)
    }

    /// Events whose window contains `instant` (see ``ScheduledEvent/contains(_:)``): the events a sample
    /// taken at `instant` completes.
    public func events(containing instant: Date, bridgeZone: TimeZone) -> [ScheduledEvent] {
        ScheduleEvaluator(self, bridgeZone: bridgeZone).events(containing: instant)
    }

    /// Number of events whose window starts before `before`; equals the occurrence index of the first
    /// event starting at or after it.
    public func occurrenceCount(before: Date, bridgeZone: TimeZone) -> Int {
        ScheduleEvaluator(self, bridgeZone: bridgeZone).occurrenceCount(before: before)
    }
}

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

extension Date {
    var since1970: Double { timeIntervalSince1970 }
}

/// The element generators of one schedule in one zone, merged (behind ``ScheduleEvaluator``).
final class ScheduleEngine {
    let generators: [ElementGenerator]

    init(_ schedule: Schedule, zone: TimeZone) {
        let resolver = ZoneResolver(zone)
        generators = schedule.elements.enumerated().map { index, element in
            ElementGenerator(element: element, index: index, resolver: resolver)
        }
    }

    func countWindows(before t: Double) -> Int {
        generators.reduce(0) { $0 + $1.countWindows(before: t, inclusive: false) }
    }

    /// Global occurrence of event `n` of element `i` whose window starts at `windowStart`.
    func occurrence(element i: Int, n: Int, windowStart: Double) -> Int {
        var total = n
        for generator in generators where generator.elementIndex != i {
            total += generator.countWindows(before: windowStart, inclusive: generator.elementIndex < i)
        }
        return total
    }

    func makeEvent(_ generator: ElementGenerator, _ n: Int) -> ScheduledEvent {
        let window = generator.window(n)
        return ScheduledEvent(
            occurrence: occurrence(element: generator.elementIndex, n: n, windowStart: window.start),
            elementIndex: generator.elementIndex,
            start: Date(timeIntervalSince1970: window.start),
            end: Date(timeIntervalSince1970: window.end),
            isAllDay: generator.isAllDay
        )
    }

    func events(from: Double, to: Double) -> [ScheduledEvent] {
        guard from <= to else { return [] }
        var events: [ScheduledEvent] = []
        for generator in generators {
            let first = generator.firstEnding(atOrAfter: from)
            let limit = generator.countWindows(before: to, inclusive: false)
            guard first < limit else { continue }
            for n in first..<limit where generator.window(n).end >= from {
                events.append(makeEvent(generator, n))
            }
        }
        if generators.count > 1 {
            events.sort { ($0.start, $0.elementIndex, $0.occurrence) < ($1.start, $1.elementIndex, $1.occurrence) }
        }
        return events
    }

    func event(occurrence wanted: Int) -> ScheduledEvent? {
        guard wanted >= 0 else { return nil }
        for generator in generators {
            // occurrence(i, n) is strictly increasing in n and ≥ n: binary search n in [0, occurrence].
            var low = 0
            var high = min(wanted, generator.cap - 1)
            while low <= high {
                let mid = low + (high - low) / 2
                let value = occurrence(
                    element: generator.elementIndex,
                    n: mid,
                    windowStart: generator.window(mid).start
                )
                if value == wanted { return makeEvent(generator, mid) }
                if value < wanted { low = mid + 1 } else { high = mid - 1 }
            }
        }
        return nil
    }
}
