import Foundation

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
