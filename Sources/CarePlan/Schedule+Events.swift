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
        ScheduleEngine(self, bridgeZone: bridgeZone).events(from: from.since1970, to: to.since1970)
    }

    /// The event with this occurrence index, or nil when the schedule has fewer events.
    public func event(occurrence: Int, bridgeZone: TimeZone) -> ScheduledEvent? {
        ScheduleEngine(self, bridgeZone: bridgeZone).event(occurrence: occurrence)
    }

    /// Events whose window contains `instant` (see ``ScheduledEvent/contains(_:)``): the events a sample
    /// taken at `instant` completes.
    public func events(containing instant: Date, bridgeZone: TimeZone) -> [ScheduledEvent] {
        let t = instant.since1970
        return ScheduleEngine(self, bridgeZone: bridgeZone).events(from: t, to: t.nextUp)
            .filter { $0.contains(instant) }
    }

    /// Number of events whose window starts before `before`; equals the occurrence index of the first
    /// event starting at or after it.
    public func occurrenceCount(before: Date, bridgeZone: TimeZone) -> Int {
        ScheduleEngine(self, bridgeZone: bridgeZone).countWindows(before: before.since1970)
    }
}

extension Date {
    var since1970: Double { timeIntervalSince1970 }
}

/// One evaluation of a schedule in one zone; built per query (cheap) and not shared.
final class ScheduleEngine {
    let generators: [ElementGenerator]

    init(_ schedule: Schedule, bridgeZone: TimeZone) {
        let resolver = ZoneResolver(schedule.timeZonePolicy.zone(bridge: bridgeZone))
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
            for n in first..<limit {
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
