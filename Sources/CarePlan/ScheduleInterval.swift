/// The step between two events of a schedule element.
///
/// Days and weeks are calendar steps that keep the wall-clock time across DST; hours and minutes are
/// absolute; months are calendar steps applied one after the other from the previous event, so a start on
/// January 31 drifts (Jan 31 → Feb 28 → Mar 28), as in CareKit. Years are written as 12 months.
/// A mix of days/weeks with hours/minutes (and no months) is stepped on the wall clock.
public struct ScheduleInterval: Sendable, Hashable, Codable, CustomStringConvertible {
    public var days: Int
    public var weeks: Int
    public var months: Int
    public var hours: Int
    public var minutes: Int

    public init(days: Int = 0, weeks: Int = 0, months: Int = 0, hours: Int = 0, minutes: Int = 0) {
        self.days = days
        self.weeks = weeks
        self.months = months
        self.hours = hours
        self.minutes = minutes
    }

    public static func days(_ count: Int) -> ScheduleInterval { ScheduleInterval(days: count) }
    public static func weeks(_ count: Int) -> ScheduleInterval { ScheduleInterval(weeks: count) }
    public static func months(_ count: Int) -> ScheduleInterval { ScheduleInterval(months: count) }
    public static func hours(_ count: Int) -> ScheduleInterval { ScheduleInterval(hours: count) }
    public static func minutes(_ count: Int) -> ScheduleInterval { ScheduleInterval(minutes: count) }

    /// Why the interval cannot drive a schedule (all zero, negative, absurdly large), or nil.
    public var validationProblem: String? {
        let components = [("days", days), ("weeks", weeks), ("months", months), ("hours", hours), ("minutes", minutes)]
        for (name, value) in components where value < 0 { return "\(name) must not be negative (got \(value))" }
        for (name, value) in components {
            if let problem = PlanLimits.problem(value, in: PlanLimits.intervalComponent) {
                return "\(name): \(problem)"
            }
        }
        if components.allSatisfy({ $0.1 == 0 }) {
            return "interval must have at least one non-zero component (days, weeks, months, hours, minutes)"
        }
        return nil
    }

    /// Days and weeks as a number of calendar days.
    var calendarDays: Int64 { Int64(days) + 7 * Int64(weeks) }
    /// Hours and minutes as seconds.
    var clockSeconds: Int64 { 3600 * Int64(hours) + 60 * Int64(minutes) }

    /// `{days: 1}`-style text: `1 day`, `2 weeks 3 hours`.
    public var description: String {
        let parts = [(days, "day"), (weeks, "week"), (months, "month"), (hours, "hour"), (minutes, "minute")]
            .filter { $0.0 != 0 }
            .map { "\($0.0) \($0.1)\($0.0 == 1 ? "" : "s")" }
        return parts.isEmpty ? "none" : parts.joined(separator: " ")
    }

    // MARK: - Codable (`{"days": 1}`, zero components omitted)

    private enum CodingKeys: String, CodingKey { case days, weeks, months, hours, minutes }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            days: try container.decodeIfPresent(Int.self, forKey: .days) ?? 0,
            weeks: try container.decodeIfPresent(Int.self, forKey: .weeks) ?? 0,
            months: try container.decodeIfPresent(Int.self, forKey: .months) ?? 0,
            hours: try container.decodeIfPresent(Int.self, forKey: .hours) ?? 0,
            minutes: try container.decodeIfPresent(Int.self, forKey: .minutes) ?? 0
        )
        if let problem = validationProblem {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: problem))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if days != 0 { try container.encode(days, forKey: .days) }
        if weeks != 0 { try container.encode(weeks, forKey: .weeks) }
        if months != 0 { try container.encode(months, forKey: .months) }
        if hours != 0 { try container.encode(hours, forKey: .hours) }
        if minutes != 0 { try container.encode(minutes, forKey: .minutes) }
    }
}
