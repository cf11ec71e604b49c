/// How long each event of a schedule element lasts.
public enum EventDuration: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The whole local calendar day of the event, `[00:00, 23:59:59]` in the schedule's zone.
    case allDay
    /// A fixed window `[start, start + seconds]`; 0 is an instant event.
    case seconds(Double)

    public static func hours(_ hours: Double) -> EventDuration { .seconds(hours * 3600) }
    public static func minutes(_ minutes: Double) -> EventDuration { .seconds(minutes * 60) }

    /// `allDay` or the number of seconds.
    public var description: String {
        switch self {
        case .allDay: "allDay"
        case .seconds(let seconds): PlanLimits.text(seconds)
        }
    }

    /// Why the duration cannot be used (not finite, negative, longer than ``PlanLimits/durationSeconds``), or nil.
    public var validationProblem: String? {
        switch self {
        case .allDay: nil
        case .seconds(let seconds):
            seconds.isFinite
                ? PlanLimits.problem(seconds, in: PlanLimits.durationSeconds)
                : "duration must be \"allDay\" or a number of seconds (got \(seconds))"
        }
    }

    // MARK: - Codable (`"allDay"` or a number of seconds, as in plan files)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            guard text == "allDay" else {
                throw DecodingError.dataCorruptedError(
                    in: container,
                    debugDescription: "duration must be \"allDay\" or a number of seconds (got \"\(text)\")"
                )
            }
            self = .allDay
        } else {
            self = .seconds(try container.decode(Double.self))
            if let problem = validationProblem {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: problem)
            }
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .allDay: try container.encode("allDay")
        case .seconds(let seconds): try container.encode(seconds)
        }
    }
}
