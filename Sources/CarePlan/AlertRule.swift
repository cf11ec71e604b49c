public import BridgeCore
import Foundation

/// How urgent an alert is.
public enum AlertSeverity: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    case info, warning, critical

    public static func < (lhs: AlertSeverity, rhs: AlertSeverity) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

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
        let unitText = unit.map { " \($0)" } ?? ""
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

/// A threshold in the plan (`"alerts"` on a task): when it trips, an alert is raised with its severity and
/// message. The rule's version is the task version that carries it.
///
/// Plan form: `{"id": "pain-high", "severity": "warning", "when": {">=": 7}, "message": "Pain {value}"}`;
/// `"when": {"outside": [90, 140], "unit": "mmHg"}` or `{"inside": […]}`; `"trend": {"rise": 2, "unit": "kg",
/// "withinDays": 3}` (or `"fall"`); `"adherence": {"fewerThan": 2, "by": "21:00"}` (`by` optional).
/// Message placeholders: `{task}`, `{title}`, `{value}`, `{unit}`, `{threshold}`, `{day}`, `{time}`,
/// `{change}`, `{completed}`, `{expected}`, `{rule}`.
public struct AlertRule: Sendable, Hashable, Codable {
    public var id: String
    public var severity: AlertSeverity
    public var condition: AlertCondition
    /// The message template; nil: a default message naming the task and the threshold.
    public var message: String?

    public init(id: String, severity: AlertSeverity = .warning, condition: AlertCondition, message: String? = nil) {
        self.id = id
        self.severity = severity
        self.condition = condition
        self.message = message
    }

    /// Why the rule cannot be used on a task of this kind, or nil.
    public func validationProblem(kind: TaskKind, numeric: Bool) -> (field: String, message: String)? {
        if id.isEmpty { return ("id", "rule id must not be empty") }
        switch condition {
        case .adherence(let fewerThan, let by):
            if fewerThan < 1 { return ("adherence.fewerThan", "must be at least 1 (got \(fewerThan))") }
            if let by, !(0..<(24 * 60)).contains(by) { return ("adherence.by", "must be a time of day") }
        case .trend(let change, let days, _):
            if !numeric { return ("trend", "a trend needs numeric values (a linkage or a numeric answer)") }
            if change == 0 { return ("trend", "the change must not be 0") }
            if days < 1 { return ("trend.withinDays", "must be at least 1 (got \(days))") }
        case .compare, .range:
            if !numeric { return ("when", "a threshold needs numeric values (a linkage or a numeric answer)") }
            if case .range(let lower, let upper, _, _) = condition, !(lower < upper) {
                return ("when", "the range's lower bound must be below its upper bound")
            }
        }
        return nil
    }

    // MARK: - Codable (the plan form)

    private enum CodingKeys: String, CodingKey { case id, severity, when, trend, adherence, message }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        severity = try container.decodeIfPresent(AlertSeverity.self, forKey: .severity) ?? .warning
        message = try container.decodeIfPresent(String.self, forKey: .message)
        if let when = try container.decodeIfPresent([String: AnyNumberOrList].self, forKey: .when) {
            let unit = when["unit"]?.text.map { HealthUnit(parsing: $0) ?? HealthUnit(rawValue: $0) }
            if let bounds = when["outside"]?.list ?? when["inside"]?.list, bounds.count == 2 {
                condition = .range(lower: bounds[0], upper: bounds[1], inside: when["inside"] != nil, unit: unit)
            } else if let (symbol, value) = when.first(where: { ComparisonOperator(symbol: $0.key) != nil }),
                let number = value.number
            {
                condition = .compare(ComparisonOperator(symbol: symbol)!, number, unit: unit)
            } else {
                throw DecodingError.dataCorruptedError(forKey: .when, in: container, debugDescription: "bad threshold")
            }
        } else if let trend = try container.decodeIfPresent([String: AnyNumberOrList].self, forKey: .trend) {
            let unit = trend["unit"]?.text.map { HealthUnit(parsing: $0) ?? HealthUnit(rawValue: $0) }
            let change = trend["rise"]?.number ?? -(trend["fall"]?.number ?? 0)
            condition = .trend(change: change, days: Int(trend["withinDays"]?.number ?? 1), unit: unit)
        } else if let adherence = try container.decodeIfPresent([String: AnyNumberOrList].self, forKey: .adherence) {
            condition = .adherence(
                fewerThan: Int(adherence["fewerThan"]?.number ?? 1),
                by: adherence["by"]?.text.flatMap(Self.minutes(ofDay:))
            )
        } else {
            throw DecodingError.dataCorruptedError(
                forKey: .when,
                in: container,
                debugDescription: "a rule needs \"when\", \"trend\" or \"adherence\""
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(severity, forKey: .severity)
        try container.encodeIfPresent(message, forKey: .message)
        switch condition {
        case .compare(let op, let value, let unit):
            var object: [String: AnyNumberOrList] = [op.rawValue: .number(value)]
            if let unit { object["unit"] = .text(unit.rawValue) }
            try container.encode(object, forKey: .when)
        case .range(let lower, let upper, let inside, let unit):
            var object: [String: AnyNumberOrList] = [inside ? "inside" : "outside": .list([lower, upper])]
            if let unit { object["unit"] = .text(unit.rawValue) }
            try container.encode(object, forKey: .when)
        case .trend(let change, let days, let unit):
            var object: [String: AnyNumberOrList] = [
                change >= 0 ? "rise" : "fall": .number(abs(change)), "withinDays": .number(Double(days)),
            ]
            if let unit { object["unit"] = .text(unit.rawValue) }
            try container.encode(object, forKey: .trend)
        case .adherence(let fewerThan, let by):
            var object: [String: AnyNumberOrList] = ["fewerThan": .number(Double(fewerThan))]
            if let by { object["by"] = .text(String(format: "%02d:%02d", by / 60, by % 60)) }
            try container.encode(object, forKey: .adherence)
        }
    }

    /// `HH:MM` → minutes after midnight.
    public static func minutes(ofDay text: String) -> Int? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]), (0..<24).contains(hour),
            (0..<60).contains(minute)
        else { return nil }
        return hour * 60 + minute
    }
}

/// A JSON scalar or list as rule objects hold them (numbers, unit text, `[lower, upper]`).
enum AnyNumberOrList: Codable, Hashable, Sendable {
    case number(Double)
    case text(String)
    case list([Double])

    var number: Double? { if case .number(let value) = self { value } else { nil } }
    var text: String? { if case .text(let value) = self { value } else { nil } }
    var list: [Double]? { if case .list(let value) = self { value } else { nil } }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let list = try? container.decode([Double].self) {
            self = .list(list)
        } else {
            self = .text(try container.decode(String.self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let value): try container.encode(value)
        case .text(let value): try container.encode(value)
        case .list(let value): try container.encode(value)
        }
    }
}
