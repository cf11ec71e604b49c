import BridgeCore
import Foundation

/// A threshold in the plan (`"alerts"` on a task): when it trips, an alert is raised with its severity and
/// message. The rule's version is the task version that carries it.
///
/// Plan form: `{"id": "pain-high", "severity": "warning", "when": {">=": 7}, "message": "Pain {value}"}`;
/// `"when": {"outside": [90, 140], "unit": "mmHg"}` or `{"inside": […]}`; `"trend": {"rise": 2, "unit": "kg",
/// "withinDays": 3}` (or `"fall"`); `"adherence": {"fewerThan": 2, "by": "21:00"}` (`by` optional).
/// Message placeholders: `{task}` (the task's id in the patient's plan, not its store key), `{title}`, `{value}`, `{unit}`, `{threshold}`, `{day}`, `{time}`,
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

    /// Whether the rule is a numeric threshold (`when`: a comparison or a range), judged value by value.
    public var isThreshold: Bool {
        switch condition {
        case .compare, .range: true
        case .trend, .adherence: false
        }
    }

    /// Why the rule cannot be used on a task of this kind, or nil.
    public func validationProblem(kind: TaskKind, numeric: Bool) -> (field: String, message: String)? {
        if id.isEmpty { return ("id", "rule id must not be empty") }
        if let problem = numberProblem { return problem }
        switch condition {
        case .adherence: break
        case .trend(let change, _, _):
            if !numeric { return ("trend", "a trend needs numeric values (a linkage or a numeric answer)") }
            if change == 0 { return ("trend", "the change must not be 0") }
        case .compare, .range:
            if !numeric { return ("when", "a threshold needs numeric values (a linkage or a numeric answer)") }
            if case .range(let lower, let upper, _, _) = condition, !(lower < upper) {
                return ("when", "the range's lower bound must be below its upper bound")
            }
        }
        return nil
    }

    /// The first number of the condition outside its ``PlanLimits`` range, with its field, or nil.
    public var numberProblem: (field: String, message: String)? {
        switch condition {
        case .adherence(let fewerThan, let by):
            if let problem = PlanLimits.problem(fewerThan, in: PlanLimits.adherenceCount) {
                return ("adherence.fewerThan", problem)
            }
            if let by, !(0..<(24 * 60)).contains(by) { return ("adherence.by", "must be a time of day") }
        case .trend(let change, let days, _):
            if let problem = PlanLimits.problem(abs(change), in: PlanLimits.magnitude) {
                return ("trend.\(change < 0 ? "fall" : "rise")", problem)
            }
            if let problem = PlanLimits.problem(days, in: PlanLimits.days) { return ("trend.withinDays", problem) }
        case .compare(let op, let value, _):
            if let problem = PlanLimits.problem(value, in: PlanLimits.magnitude) {
                return ("when.\(op.rawValue)", problem)
            }
        case .range(let lower, let upper, let inside, _):
            let key = inside ? "inside" : "outside"
            if let problem = PlanLimits.problem(lower, in: PlanLimits.magnitude) { return ("when.\(key)[0]", problem) }
            if let problem = PlanLimits.problem(upper, in: PlanLimits.magnitude) { return ("when.\(key)[1]", problem) }
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
            let days = trend["withinDays"]?.number ?? 1
            guard let whole = PlanLimits.wholeNumber(days, in: PlanLimits.days) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .trend,
                    in: container,
                    debugDescription:
                        "withinDays: \(PlanLimits.problem(days, in: Self.range(PlanLimits.days)) ?? "not a whole number")"
                )
            }
            condition = .trend(change: change, days: whole, unit: unit)
        } else if let adherence = try container.decodeIfPresent([String: AnyNumberOrList].self, forKey: .adherence) {
            let fewerThan = adherence["fewerThan"]?.number ?? 1
            guard let whole = PlanLimits.wholeNumber(fewerThan, in: PlanLimits.adherenceCount) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .adherence,
                    in: container,
                    debugDescription: "fewerThan: "
                        + (PlanLimits.problem(fewerThan, in: Self.range(PlanLimits.adherenceCount))
                            ?? "not a whole number")
                )
            }
            condition = .adherence(fewerThan: whole, by: adherence["by"]?.text.flatMap(Self.minutes(ofDay:)))
        } else {
            throw DecodingError.dataCorruptedError(
                forKey: .when,
                in: container,
                debugDescription: "a rule needs \"when\", \"trend\" or \"adherence\""
            )
        }
        if let problem = numberProblem {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "\(problem.field): \(problem.message)")
            )
        }
    }

    private static func range(_ range: ClosedRange<Int>) -> ClosedRange<Double> {
        Double(range.lowerBound)...Double(range.upperBound)
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
