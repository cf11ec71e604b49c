import CarePlan
import Foundation

/// Query cost of one year of events for a 20-task plan, with schedules that started 1, 10 and 50 years
/// before the window: the figures should be flat (closed-form occurrence counting).
let scheduleBenchmark = Benchmark(name: "schedule", summary: "one year of events for 20 tasks vs schedule age") {
    let bridge = TimeZone(identifier: "Europe/Berlin")!
    let windowStart = WallClockTime(year: 2026, month: 1, day: 1).date(in: bridge)
    let windowEnd = WallClockTime(year: 2027, month: 1, day: 1).date(in: bridge)
    let clock = ContinuousClock()
    var medians: [Double] = []
    for age in [1, 10, 50] {
        let tasks = planSchedules(startYear: 2026 - age)
        var events = 0
        var timings: [Double] = []
        for _ in 0..<25 {
            var count = 0
            let elapsed = clock.measure {
                for schedule in tasks {
                    count += schedule.events(from: windowStart, to: windowEnd, bridgeZone: bridge).count
                }
            }
            events = count
            timings.append(Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15)
        }
        timings.sort()
        medians.append(timings[timings.count / 2])
        print(
            "started \(String(age).leftPadded(2)) years ago: \(tasks.count) tasks, \(events) events in 2026: "
                + String(
                    format: "median %.2f ms, min %.2f ms, max %.2f ms",
                    timings[timings.count / 2],
                    timings[0],
                    timings[timings.count - 1]
                )
        )
    }
    print("(max includes the first query, which loads the zones)")
    let ratio = (medians.max() ?? 0) / max(medians.min() ?? 1, 1e-9)
    print(String(format: "max/min median ratio across ages: %.2f (flat ≈ 1; target < 20 ms)", ratio))

    // Auto-completion: which events contain a sample's time, for every task of the plan.
    let tasks = planSchedules(startYear: 2016)
    var random = SystemRandomNumberGenerator()
    let span = windowEnd.timeIntervalSince(windowStart)
    let samples = (0..<20_000).map { _ in windowStart.addingTimeInterval(Double.random(in: 0..<span, using: &random)) }
    var matched = 0
    let oneShot = clock.measure {
        for sample in samples {
            for schedule in tasks { matched += schedule.events(containing: sample, bridgeZone: bridge).count }
        }
    }
    let evaluators = tasks.map { ScheduleEvaluator($0, bridgeZone: bridge) }
    var reusedMatched = 0
    let reused = clock.measure {
        for sample in samples {
            for evaluator in evaluators { reusedMatched += evaluator.events(containing: sample).count }
        }
    }
    for (label, elapsed, count) in [
        ("Schedule.events(containing:)", oneShot, matched), ("ScheduleEvaluator (reused)", reused, reusedMatched),
    ] {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(
            "\(label): \(samples.count) samples × \(tasks.count) tasks, \(count) matches: "
                + String(
                    format: "%.0f samples/s (%.2f µs per task lookup)",
                    Double(samples.count) / seconds,
                    seconds / Double(samples.count * tasks.count) * 1e6
                )
        )
    }
}

/// Twenty schedules of the kinds a care plan uses, all starting on Jan 1 of `startYear`.
private func planSchedules(startYear: Int) -> [Schedule] {
    let start = WallClockTime(year: startYear, month: 1, day: 1)
    let berlin = TimeZonePolicy.fixed("Europe/Berlin")
    let newYork = TimeZonePolicy.fixed("America/New_York")
    var schedules: [Schedule] = []
    for hour in [7, 12, 19] {
        schedules.append(.daily(hour: hour, start: start, duration: .minutes(30), timeZone: berlin))
        schedules.append(.daily(hour: hour, minute: 30, start: start, duration: .hours(1), timeZone: .floating))
    }
    schedules.append(
        Schedule(
            timeZonePolicy: berlin,
            elements: [ScheduleElement(start: start, interval: .days(1), duration: .allDay)]
        )
    )
    schedules.append(
        Schedule(
            timeZonePolicy: newYork,
            elements: [ScheduleElement(start: start, interval: .days(1), duration: .allDay)]
        )
    )
    schedules.append(.every(days: 3, hour: 9, start: start, timeZone: berlin))
    schedules.append(.every(days: 2, hour: 21, start: start, duration: .seconds(0), timeZone: newYork))
    schedules.append(.weekly(weekdays: [.monday, .wednesday, .friday], hour: 8, start: start, timeZone: berlin))
    schedules.append(.weekly(weekdays: [.sunday], hour: 10, start: start, duration: .hours(2), timeZone: .floating))
    schedules.append(.weeklyOccurrences([0, 4, 0, 2, 0, 4, 0], start: start, timeZone: berlin))
    schedules.append(.weeklyOccurrences([1, 1, 1, 1, 1, 1, 1], start: start, timeZone: .floating))
    schedules.append(
        Schedule(
            timeZonePolicy: berlin,
            elements: [ScheduleElement(start: start.at(hour: 8), interval: .hours(8), duration: .minutes(15))]
        )
    )
    schedules.append(
        Schedule(
            timeZonePolicy: berlin,
            elements: [ScheduleElement(start: start.at(hour: 9), interval: .months(1), duration: .hours(1))]
        )
    )
    schedules.append(
        Schedule(
            timeZonePolicy: newYork,
            elements: [ScheduleElement(start: start, interval: .months(3), duration: .allDay)]
        )
    )
    schedules.append(
        Schedule(
            timeZonePolicy: berlin,
            elements: [
                ScheduleElement(start: start.at(hour: 8), interval: .days(1), duration: .minutes(10)),
                ScheduleElement(start: start.at(hour: 20), interval: .days(1), duration: .minutes(10)),
                ScheduleElement(start: start, interval: .weeks(1), duration: .allDay),
            ]
        )
    )
    schedules.append(.daily(hour: 6, start: start, duration: .hours(1), timeZone: newYork))
    schedules.append(.weekly(weekdays: [.tuesday, .thursday], hour: 18, start: start, timeZone: newYork))
    return schedules
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
