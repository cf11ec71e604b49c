import CarePlan
import Foundation
import TestSupport

/// A deliberately simple reference for the engine: walks every event from the element start with
/// Foundation's `Calendar` (no closed forms, no caches) and numbers the merged list.
struct NaiveScheduleOracle {
    struct Event: Equatable, CustomStringConvertible {
        var occurrence: Int
        var elementIndex: Int
        var start: Date
        var end: Date
        var isAllDay: Bool
        var description: String { "#\(occurrence) e\(elementIndex) \(start)…\(end)\(isAllDay ? " all-day" : "")" }
    }

    var schedule: Schedule
    var zone: TimeZone

    init(_ schedule: Schedule, bridgeZone: TimeZone) {
        self.schedule = schedule
        self.zone = schedule.timeZonePolicy.zone(bridge: bridgeZone)
    }

    /// Every event whose generated start is before `until`, numbered globally.
    func allEvents(until: Date) -> [Event] {
        var zoned = Calendar(identifier: .gregorian)
        zoned.timeZone = zone
        var floating = Calendar(identifier: .gregorian)
        floating.timeZone = TimeZone(secondsFromGMT: 0)!

        func components(_ wall: WallClockTime) -> DateComponents {
            DateComponents(
                year: wall.year,
                month: wall.month,
                day: wall.day,
                hour: wall.hour,
                minute: wall.minute,
                second: wall.second
            )
        }
        /// A wall-clock time held as a UTC date, resolved in the schedule's zone.
        func resolve(_ wallAsUTC: Date) -> Date {
            zoned.date(from: floating.dateComponents([.year, .month, .day, .hour, .minute, .second], from: wallAsUTC))!
        }

        var collected: [(start: Date, end: Date, allDay: Bool, element: Int, n: Int)] = []
        for (index, element) in schedule.elements.enumerated() {
            let allDay = element.duration == .allDay || element.weeklyOccurrences != nil
            let startWall = floating.date(from: components(allDay ? element.start.startOfDay : element.start))!
            let endInstant = element.end.map { zoned.date(from: components($0))! }
            var generated: [Date] = []
            let interval = element.interval
            func keep(_ date: Date) -> Bool { date < until && (endInstant.map { date < $0 } ?? true) }
            if let counts = element.weeklyOccurrences {
                var day = startWall
                while case let date = resolve(day), keep(date) {
                    let weekday = floating.component(.weekday, from: day)
                    generated += repeatElement(date, count: counts[weekday - 1])
                    day = floating.date(byAdding: .day, value: 1, to: day)!
                }
            } else if interval.months > 0 {
                var wall = startWall
                while case let date = resolve(wall), keep(date) {
                    generated.append(date)
                    wall = floating.date(byAdding: .month, value: interval.months, to: wall)!
                    wall = floating.date(byAdding: .day, value: interval.days + 7 * interval.weeks, to: wall)!
                    wall = wall.addingTimeInterval(Double(interval.hours * 3600 + interval.minutes * 60))
                }
            } else if interval.days + interval.weeks > 0 || allDay {
                var n = 0
                while true {
                    var wall = floating.date(
                        byAdding: .day,
                        value: n * (interval.days + 7 * interval.weeks),
                        to: startWall
                    )!
                    if !allDay {
                        wall = wall.addingTimeInterval(Double(n * (interval.hours * 3600 + interval.minutes * 60)))
                    }
                    let date = resolve(wall)
                    guard keep(date) else { break }
                    generated.append(date)
                    n += 1
                }
            } else {
                let step = Double(interval.hours * 3600 + interval.minutes * 60)
                var date = resolve(startWall)
                while keep(date) {
                    generated.append(date)
                    date = date.addingTimeInterval(step)
                }
            }
            for (n, date) in generated.enumerated() {
                if allDay {
                    let dayStart = zoned.startOfDay(for: date)
                    let next = zoned.date(byAdding: .day, value: 1, to: dayStart)!
                    collected.append((dayStart, zoned.startOfDay(for: next).addingTimeInterval(-1), true, index, n))
                } else if case .seconds(let seconds) = element.duration {
                    collected.append((date, date.addingTimeInterval(seconds), false, index, n))
                }
            }
        }
        collected.sort { ($0.start, $0.element, $0.n) < ($1.start, $1.element, $1.n) }
        return collected.enumerated().map { occurrence, event in
            Event(
                occurrence: occurrence,
                elementIndex: event.element,
                start: event.start,
                end: event.end,
                isAllDay: event.allDay
            )
        }
    }

    /// Overlap query on the naive list.
    func events(from: Date, to: Date) -> [Event] {
        allEvents(until: to).filter { $0.start < to && $0.end >= from }
    }
}

/// SplitMix64: a seeded generator so that "random" schedules are the same on every run.
typealias SeededGenerator = SplitMix64
