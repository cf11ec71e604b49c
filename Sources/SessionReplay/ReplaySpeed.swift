/// How fast a recording is replayed.
public enum ReplaySpeed: Sendable, Hashable, CustomStringConvertible {
    /// As fast as the pipeline takes the events.
    case max
    /// `factor` times real time (1 = as recorded, 10 = ten times faster).
    case factor(Double)

    public static let realtime = ReplaySpeed.factor(1)

    /// The factors accepted: a thousandth of real time up to a million times faster.
    public static let factors: ClosedRange<Double> = 0.001...1_000_000

    /// Parses `max`, `realtime` or a number in ``factors``.
    public init?(_ text: String) {
        switch text.lowercased() {
        case "max": self = .max
        case "realtime": self = .factor(1)
        default:
            guard let factor = Double(text), Self.factors.contains(factor) else { return nil }
            self = .factor(factor)
        }
    }

    public var description: String {
        switch self {
        case .max: "max"
        case .factor(1): "realtime"
        case .factor(let factor): "\(factor)"
        }
    }
}
