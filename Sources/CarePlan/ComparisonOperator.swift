import Foundation

/// A comparison of a value with a threshold (`>`, `≥`, `<`, `≤`, `=`).
public enum ComparisonOperator: String, Sendable, Hashable, Codable, CaseIterable {
    case greaterThan = ">"
    case greaterThanOrEqual = ">="
    case lessThan = "<"
    case lessThanOrEqual = "<="
    case equal = "=="

    /// Also accepts `≥`, `≤` and `=`.
    public init?(symbol: String) {
        switch symbol {
        case ">": self = .greaterThan
        case ">=", "≥": self = .greaterThanOrEqual
        case "<": self = .lessThan
        case "<=", "≤": self = .lessThanOrEqual
        case "==", "=": self = .equal
        default: return nil
        }
    }

    public func holds(_ value: Double, _ threshold: Double) -> Bool {
        switch self {
        case .greaterThan: value > threshold
        case .greaterThanOrEqual: value >= threshold
        case .lessThan: value < threshold
        case .lessThanOrEqual: value <= threshold
        case .equal: abs(value - threshold) < 1e-9
        }
    }

    /// `≥` rather than `>=`, for messages.
    public var display: String {
        switch self {
        case .greaterThan: ">"
        case .greaterThanOrEqual: "≥"
        case .lessThan: "<"
        case .lessThanOrEqual: "≤"
        case .equal: "="
        }
    }
}
