public import Foundation

/// Which zone a schedule's wall-clock times and calendar days are evaluated in.
///
/// CareKit re-interprets stored schedules in the device's current zone; CareBridge persists the policy.
/// - `fixed`: always the named IANA zone, wherever the bridge is.
/// - `floating`: the bridge's configured zone at evaluation time ("08:00 wherever I am").
public enum TimeZonePolicy: Sendable, Hashable, Codable, CustomStringConvertible {
    case fixed(String)
    case floating

    /// The zone to evaluate in. A fixed identifier Foundation does not know (plan files are validated,
    /// so this only happens with a stored zone the system database later dropped) falls back to UTC.
    public func zone(bridge: TimeZone) -> TimeZone {
        switch self {
        case .floating: bridge
        case .fixed(let identifier): TimeZone(identifier: identifier) ?? TimeZone(secondsFromGMT: 0)!
        }
    }

    /// `floating` or the IANA identifier: the plan-file and persisted form.
    public var description: String {
        switch self {
        case .floating: "floating"
        case .fixed(let identifier): identifier
        }
    }

    /// Reads the plan-file form: `"floating"` or an IANA zone identifier Foundation knows.
    /// - Returns: nil for an unknown zone.
    public init?(parsing text: String) {
        if text == "floating" {
            self = .floating
        } else if let zone = TimeZone(identifier: text) {
            self = .fixed(zone.identifier)
        } else {
            return nil
        }
    }

    // MARK: - Codable (a single string)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let policy = TimeZonePolicy(parsing: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "unknown time zone '\(text)'")
        }
        self = policy
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
