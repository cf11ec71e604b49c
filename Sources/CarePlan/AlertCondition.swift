public import BridgeCore
import Foundation

/// What trips an alert rule.
public enum AlertCondition: Sendable, Hashable {
    /// A value compares with the threshold (CareKit 1.x numeric thresholds). `unit`: the threshold's unit
    /// (nil: the task's unit).
    case compare(ComparisonOperator, Double, unit: HealthUnit?)
    /// A value lies inside `[lower, upper]` (`inside`) or outside it (`outside`).
    case range(lower: Double, upper: Double, inside: Bool, unit: HealthUnit?)
    /// The value rises (`change` > 0) or falls (`change` < 0) by more than `|change|` within `days` days:
    /// a reading compared with every earlier reading of the window (body mass +2 kg in 3 days).
    case trend(change: Double, days: Int, unit: HealthUnit?)
    /// Fewer than `fewerThan` events of the day completed by the end of the day, or by `by` (minutes after
    /// local midnight) when given (CareKit 1.x adherence thresholds).
    case adherence(fewerThan: Int, by: Int?)

    /// The threshold's unit, if it names one.
    public var unit: HealthUnit? {
        switch self {
        case .compare(_, _, let unit), .range(_, _, _, let unit), .trend(_, _, let unit): unit
        case .adherence: nil
        }
    }

    /// `≥ 7`, `outside 90–140`, `rise > 2 within 3 days`, `fewer than 2 by 21:00`.
    public var summary: String {
        let unitText = unit.map { " \($0.displaySymbol)" } ?? ""
        switch self {
        case .compare(let op, let value, _): return "\(op.display) \(AnswerFormat.format(value))\(unitText)"
        case .range(let lower, let upper, let inside, _):
            return "\(inside ? "inside" : "outside") \(AnswerFormat.format(lower))–\(AnswerFormat.format(upper))"
                + unitText
        case .trend(let change, let days, _):
            return "\(change >= 0 ? "rise" : "fall") > \(AnswerFormat.format(abs(change)))\(unitText) within "
                + "\(days) day\(days == 1 ? "" : "s")"
        case .adherence(let fewerThan, let by):
            let deadline = by.map { String(format: " by %02d:%02d", $0 / 60, $0 % 60) } ?? " in a day"
            return "fewer than \(fewerThan) done\(deadline)"
        }
    }
}
