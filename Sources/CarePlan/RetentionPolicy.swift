public import BridgeCore
public import BridgeFoundation

/// How long the store keeps the raw samples of high-rate types before replacing them by aggregates
/// (`carebridge store vacuum`). Types without a rule are kept as they are, forever: health data is never
/// dropped silently.
///
/// Plan-file form (the optional `"retention"` key; `plan apply` stores it in the store, replacing the policy
/// stored before; `{}` clears it):
/// ```json
/// "retention": {
///   "rrInterval": {"keepRawDays": 30},
///   "heartRate": {"keepRawDays": 90, "aggregateMinutes": 1}
/// }
/// ```
/// `keepRawDays` (required, 1…36500): raw samples measured at least that many days before the vacuum are
/// aggregated. `aggregateMinutes` (default 1; a divisor of 1440, so buckets never straddle a UTC day): the
/// width of each aggregate (min, max, mean, count, first, last per device, source kind and patient).
public struct RetentionPolicy: Sendable, Hashable {
    /// The rules, one per type, in type order.
    public var rules: [RetentionRule]

    public init(rules: [RetentionRule] = []) {
        self.rules = rules.sorted { $0.type.rawValue < $1.type.rawValue }
    }

    /// The rule of `type`, nil when the type is kept raw forever.
    public func rule(for type: QuantityType) -> RetentionRule? {
        rules.first { $0.type == type }
    }

    public var isEmpty: Bool { rules.isEmpty }

    /// The plan-file form.
    public var json: JSONValue {
        var object = JSONObject()
        for rule in rules {
            var fields = JSONObject()
            fields["keepRawDays"] = .int(rule.keepRawDays)
            fields["aggregateMinutes"] = .int(rule.aggregateMinutes)
            object[rule.type.rawValue] = .object(fields)
        }
        return .object(object)
    }

    /// Reads the `"retention"` value of a plan file.
    /// - Parameters:
    ///   - value: the value of the key.
    ///   - path: the file name for errors.
    ///   - at: the JSON path of the value (`retention`).
    /// - Throws: ``CarePlanError`` naming the file, the JSON path (`retention.heartRate.keepRawDays`) and what is
    ///   wrong with it.
    public static func parse(
        _ value: JSONValue,
        path: String,
        at: String = "retention"
    ) throws(CarePlanError)
        -> RetentionPolicy
    {
        func fail(_ location: String, _ message: String) -> CarePlanError {
            CarePlanError(path: path, location: location, message: message)
        }
        guard case .object(let object) = value else {
            throw fail(at, "expected an object of quantity types, got \(value.kindDescription)")
        }
        var rules: [RetentionRule] = []
        for key in object.keys {
            let ruleAt = "\(at).\(key)"
            guard let type = QuantityType(rawValue: key) else {
                let known = QuantityType.allCases.map(\.rawValue).joined(separator: ", ")
                throw fail(ruleAt, "unknown quantity type \"\(key)\" (expected one of: \(known))")
            }
            guard case .object(let fields) = object[key]! else {
                throw fail(
                    ruleAt,
                    "expected an object such as {\"keepRawDays\": 30}, got \(object[key]!.kindDescription)"
                )
            }
            let allowed = ["keepRawDays", "aggregateMinutes"]
            for field in fields.keys.sorted() where !allowed.contains(field) {
                throw fail(
                    "\(ruleAt).\(field)",
                    "unknown key \"\(field)\" (expected one of: \(allowed.joined(separator: ", ")))"
                )
            }
            guard let daysValue = fields["keepRawDays"], daysValue != .null else {
                throw fail(
                    "\(ruleAt).keepRawDays",
                    "missing required key \"keepRawDays\" (days of raw samples to keep)"
                )
            }
            let days = try wholeNumber(daysValue, "\(ruleAt).keepRawDays", fail)
            guard (1...36_500).contains(days) else {
                throw fail(
                    "\(ruleAt).keepRawDays",
                    "keepRawDays must be between 1 and 36500, got \(days) (a type without a rule keeps everything)"
                )
            }
            var minutes = 1
            if let minutesValue = fields["aggregateMinutes"], minutesValue != .null {
                minutes = try wholeNumber(minutesValue, "\(ruleAt).aggregateMinutes", fail)
                guard minutes >= 1, minutes <= 1440, 1440 % minutes == 0 else {
                    throw fail(
                        "\(ruleAt).aggregateMinutes",
                        "aggregateMinutes must divide a day (1, 2, 3, 4, 5, 6, 10, 15, 20, 30, 60, … 1440), got \(minutes)"
                    )
                }
            }
            rules.append(RetentionRule(type: type, keepRawDays: days, aggregateMinutes: minutes))
        }
        return RetentionPolicy(rules: rules)
    }

    private static func wholeNumber(
        _ value: JSONValue,
        _ at: String,
        _ fail: (String, String) -> CarePlanError
    ) throws(CarePlanError) -> Int {
        switch value {
        case .int(let number): return number
        case .double(let number) where number == number.rounded() && abs(number) < 1e15: return Int(number)
        default: throw fail(at, "expected a whole number, got \(value.kindDescription)")
        }
    }
}

/// One type's retention: keep raw samples for ``keepRawDays``, then ``aggregateMinutes``-wide aggregates.
public struct RetentionRule: Sendable, Hashable {
    public var type: QuantityType
    /// Raw samples measured at least this many days (of 86,400 s) before the vacuum are aggregated.
    public var keepRawDays: Int
    /// The width of one aggregate bucket, in minutes (divides 1440).
    public var aggregateMinutes: Int

    public init(type: QuantityType, keepRawDays: Int, aggregateMinutes: Int = 1) {
        self.type = type
        self.keepRawDays = keepRawDays
        self.aggregateMinutes = aggregateMinutes
    }

    /// The bucket width in seconds.
    public var bucketSeconds: Int { aggregateMinutes * 60 }
}
