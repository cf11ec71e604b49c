/// One repeating pattern of a schedule: events from `start` every `interval`, each lasting `duration`,
/// until (exclusive) `end`.
///
/// `start` and `end` are wall-clock times in the schedule's zone. All-day elements start at midnight (the
/// initialisers normalise `start`; the engine ignores its time of day).
public struct ScheduleElement: Sendable, Hashable, Codable {
    public var start: WallClockTime
    /// Events exist only while their start is before `end` (exclusive); nil = open-ended.
    public var end: WallClockTime?
    public var interval: ScheduleInterval
    public var duration: EventDuration
    public var text: String?
    public var targetValues: [TargetValue]
    /// CareKit 1.x form: seven counts from Sunday; the element yields that many all-day events on each such
    /// weekday, every week from `start`'s day. When set, `interval` is one week and `duration` all-day.
    public var weeklyOccurrences: [Int]?

    public init(
        start: WallClockTime,
        end: WallClockTime? = nil,
        interval: ScheduleInterval,
        duration: EventDuration = .hours(1),
        text: String? = nil,
        targetValues: [TargetValue] = []
    ) {
        self.start = duration == .allDay ? start.startOfDay : start
        self.end = end
        self.interval = interval
        self.duration = duration
        self.text = text
        self.targetValues = targetValues
        self.weeklyOccurrences = nil
    }

    /// The CareKit 1.x weekly form: `counts[0]` all-day events every Sunday, `counts[1]` every Monday, …
    public init(
        weeklyOccurrences counts: [Int],
        start: WallClockTime,
        end: WallClockTime? = nil,
        text: String? = nil,
        targetValues: [TargetValue] = []
    ) {
        self.start = start.startOfDay
        self.end = end
        self.interval = .weeks(1)
        self.duration = .allDay
        self.text = text
        self.targetValues = targetValues
        self.weeklyOccurrences = counts
    }

    /// Why this element cannot be scheduled, or nil. The message names the offending field.
    public var validationProblem: (field: String, message: String)? {
        if let problem = start.validationProblem { return ("start", problem) }
        if let end {
            if let problem = end.validationProblem { return ("end", problem) }
            if end <= start { return ("end", "end \(end) must be after start \(start)") }
        }
        for (index, target) in targetValues.enumerated() {
            if let problem = PlanLimits.problem(target.value, in: PlanLimits.magnitude) {
                return ("targetValues[\(index)].value", problem)
            }
        }
        if let counts = weeklyOccurrences {
            if counts.count != 7 {
                return ("weekly", "expected 7 counts (Sunday … Saturday), got \(counts.count)")
            }
            if let bad = counts.firstIndex(where: { !PlanLimits.weeklyCount.contains($0) }) {
                return ("weekly[\(bad)]", "count must be 0…1000 (got \(counts[bad]))")
            }
            if counts.allSatisfy({ $0 == 0 }) { return ("weekly", "at least one weekday needs a count above 0") }
            return nil
        }
        if let problem = interval.validationProblem { return ("interval", problem) }
        if let problem = duration.validationProblem { return ("duration", problem) }
        if duration == .allDay, interval.hours != 0 || interval.minutes != 0 {
            return ("interval", "an all-day element repeats in whole days, weeks or months (got \(interval))")
        }
        return nil
    }

    // MARK: - Codable (the plan-file element form)

    private enum CodingKeys: String, CodingKey {
        case start, end, interval, duration, text, targetValues, weekly
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let start = try container.decode(WallClockTime.self, forKey: .start)
        let end = try container.decodeIfPresent(WallClockTime.self, forKey: .end)
        let text = try container.decodeIfPresent(String.self, forKey: .text)
        let targets = try container.decodeIfPresent([TargetValue].self, forKey: .targetValues) ?? []
        if let counts = try container.decodeIfPresent([Int].self, forKey: .weekly) {
            self.init(weeklyOccurrences: counts, start: start, end: end, text: text, targetValues: targets)
        } else {
            self.init(
                start: start,
                end: end,
                interval: try container.decode(ScheduleInterval.self, forKey: .interval),
                duration: try container.decodeIfPresent(EventDuration.self, forKey: .duration) ?? .hours(1),
                text: text,
                targetValues: targets
            )
        }
        if let problem = validationProblem {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "\(problem.field): \(problem.message)")
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(start, forKey: .start)
        try container.encodeIfPresent(end, forKey: .end)
        if let weeklyOccurrences {
            try container.encode(weeklyOccurrences, forKey: .weekly)
        } else {
            try container.encode(interval, forKey: .interval)
            try container.encode(duration, forKey: .duration)
        }
        try container.encodeIfPresent(text, forKey: .text)
        if !targetValues.isEmpty { try container.encode(targetValues, forKey: .targetValues) }
    }
}
