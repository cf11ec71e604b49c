import Foundation

/// What the insights keep of a linked task's readings, added one by one in time order: per calendar day the sum,
/// count, lowest and highest of the period's readings, and the count, mean, range and latest of the period and of
/// the period before. A few numbers per day, however many readings there are.
struct ReadingSummary {
    /// One reading in the task's unit, with its calendar day in the task's zone.
    struct Reading {
        var value: Double
        var at: Date
        var day: String
    }

    /// The figures of one day of the period.
    struct Day {
        var sum = 0.0
        var count = 0
        var low: Double
        var high: Double
    }

    /// Count, sum, range and latest of a period's readings.
    struct Figures {
        var count = 0
        var sum = 0.0
        var min = Double.infinity
        var max = -Double.infinity
        var latest: Reading?

        mutating func add(_ reading: Reading) {
            count += 1
            sum += reading.value
            min = Swift.min(min, reading.value)
            max = Swift.max(max, reading.value)
            if latest.map({ reading.at >= $0.at }) ?? true { latest = reading }
        }

        /// As the insights show them; nil without readings.
        var values: TaskInsight.Values? {
            guard let latest, count > 0 else { return nil }
            return TaskInsight.Values(
                count: count,
                mean: sum / Double(count),
                min: min,
                max: max,
                latest: latest.value,
                latestText: nil,
                latestAt: latest.at
            )
        }
    }

    private(set) var days: [String: Day] = [:]
    private(set) var current = Figures()
    private(set) var previous = Figures()

    /// Adds a reading of the period (`current`) or of the period before (`previous`); others are ignored.
    mutating func add(_ reading: Reading, current isCurrent: Bool, previous isPrevious: Bool) {
        if isCurrent {
            current.add(reading)
            var day = days[reading.day] ?? Day(low: reading.value, high: reading.value)
            day.sum += reading.value
            day.count += 1
            day.low = Swift.min(day.low, reading.value)
            day.high = Swift.max(day.high, reading.value)
            days[reading.day] = day
        } else if isPrevious {
            previous.add(reading)
        }
    }
}
