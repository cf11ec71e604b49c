import BridgeFoundation

/// When a task's events happen: one or more elements, evaluated in the zone of `timeZonePolicy`.
///
/// Element order is significant and persisted: events of different elements that start at the same instant
/// are ordered by element index, so occurrence numbers are deterministic.
public struct Schedule: Sendable, Hashable, Codable {
    public var timeZonePolicy: TimeZonePolicy
    public var elements: [ScheduleElement]

    public init(timeZonePolicy: TimeZonePolicy = .floating, elements: [ScheduleElement]) {
        self.timeZonePolicy = timeZonePolicy
        self.elements = elements
    }

    /// The earliest element start (occurrence 0 lies here or later).
    public var start: WallClockTime? { elements.map(\.start).min() }

    /// The latest element end, or nil when any element is open-ended.
    public var end: WallClockTime? {
        var latest: WallClockTime?
        for element in elements {
            guard let end = element.end else { return nil }
            latest = max(latest ?? end, end)
        }
        return latest
    }

    /// Why the schedule cannot be used, with the JSON-path-like field, or nil.
    public var validationProblem: (field: String, message: String)? {
        if elements.isEmpty { return ("elements", "a schedule needs at least one element") }
        for (index, element) in elements.enumerated() {
            if let problem = element.validationProblem {
                return ("elements[\(index)].\(problem.field)", problem.message)
            }
        }
        return nil
    }

    // MARK: - Conveniences

    /// Every day at `hour:minute` from `start`'s day.
    public static func daily(
        hour: Int,
        minute: Int = 0,
        start: WallClockTime,
        end: WallClockTime? = nil,
        duration: EventDuration = .hours(1),
        text: String? = nil,
        targetValues: [TargetValue] = [],
        timeZone: TimeZonePolicy = .floating
    ) -> Schedule {
        every(
            days: 1,
            hour: hour,
            minute: minute,
            start: start,
            end: end,
            duration: duration,
            text: text,
            targetValues: targetValues,
            timeZone: timeZone
        )
    }

    /// Every `days` days at `hour:minute`, first on `start`'s day.
    public static func every(
        days: Int,
        hour: Int = 0,
        minute: Int = 0,
        start: WallClockTime,
        end: WallClockTime? = nil,
        duration: EventDuration = .hours(1),
        text: String? = nil,
        targetValues: [TargetValue] = [],
        timeZone: TimeZonePolicy = .floating
    ) -> Schedule {
        let element = ScheduleElement(
            start: start.at(hour: hour, minute: minute),
            end: end,
            interval: .days(days),
            duration: duration,
            text: text,
            targetValues: targetValues
        )
        return Schedule(timeZonePolicy: timeZone, elements: [element])
    }

    /// Every week on each of `weekdays` at `hour:minute`, from the first such day on or after `start`'s day.
    /// One element per weekday, ordered by their first event.
    public static func weekly(
        weekdays: [Weekday],
        hour: Int = 0,
        minute: Int = 0,
        start: WallClockTime,
        end: WallClockTime? = nil,
        duration: EventDuration = .hours(1),
        text: String? = nil,
        targetValues: [TargetValue] = [],
        timeZone: TimeZonePolicy = .floating
    ) -> Schedule {
        let startDay = start.dayNumber
        let firstDays = Set(weekdays).map { weekday -> Int64 in
            startDay + Int64(weekday.rawValue - start.weekday).floorMod(7)
        }
        let elements = firstDays.sorted().map { day in
            ScheduleElement(
                start: WallClockTime(localSeconds: day * 86_400).at(hour: hour, minute: minute),
                end: end,
                interval: .weeks(1),
                duration: duration,
                text: text,
                targetValues: targetValues
            )
        }
        return Schedule(timeZonePolicy: timeZone, elements: elements)
    }

    /// CareKit 1.x weekly occurrences: `counts[0]` all-day events each Sunday, `counts[1]` each Monday, …
    public static func weeklyOccurrences(
        _ counts: [Int],
        start: WallClockTime,
        end: WallClockTime? = nil,
        text: String? = nil,
        targetValues: [TargetValue] = [],
        timeZone: TimeZonePolicy = .floating
    ) -> Schedule {
        let element = ScheduleElement(
            weeklyOccurrences: counts,
            start: start,
            end: end,
            text: text,
            targetValues: targetValues
        )
        return Schedule(timeZonePolicy: timeZone, elements: [element])
    }

    // MARK: - Codable (`{"timeZone": "Europe/Berlin" | "floating", "elements": [...]}`)

    private enum CodingKeys: String, CodingKey { case timeZone, elements }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        timeZonePolicy = try container.decodeIfPresent(TimeZonePolicy.self, forKey: .timeZone) ?? .floating
        elements = try container.decode([ScheduleElement].self, forKey: .elements)
        if elements.isEmpty {
            throw DecodingError.dataCorruptedError(
                forKey: .elements,
                in: container,
                debugDescription: "a schedule needs at least one element"
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(timeZonePolicy, forKey: .timeZone)
        try container.encode(elements, forKey: .elements)
    }
}
