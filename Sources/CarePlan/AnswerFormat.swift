public import BridgeCore
import Foundation

/// What a person answers for an assessment they complete themselves (`carebridge complete TASK --value 7`),
/// declared on the task in the plan file under `"answer"`.
///
/// Every answer is stored as one outcome value: a number (`value`) and, for answers that are words, the text.
/// `scale`: the number; `yesNo`: 1 or 0 with text `yes`/`no`; `choice`: the option's index with its text;
/// `text`: 1 with the text; `duration`: seconds (unit `s`); `count`: a whole number (unit `1`).
public enum AnswerFormat: Sendable, Hashable {
    /// A number from `min` to `max` in steps of `step` (pain 0–10), with optional labels for some values.
    case scale(min: Double, max: Double, step: Double, labels: [Double: String])
    case yesNo
    /// One of the listed options.
    case choice([String])
    /// Free text.
    case text
    /// A length of time (sleep), entered as `7h30m`, `7.5h`, `450m` or seconds.
    case duration
    /// A whole number of times (`0`, `3`).
    case count

    /// The name used in the plan file.
    public var typeName: String {
        switch self {
        case .scale: "scale"
        case .yesNo: "yesNo"
        case .choice: "choice"
        case .text: "text"
        case .duration: "duration"
        case .count: "count"
        }
    }

    /// The unit answers are stored in.
    public var unit: HealthUnit {
        switch self {
        case .duration: HealthUnit(rawValue: "s")
        default: HealthUnit(rawValue: "1")
        }
    }

    /// Whether the answer is a number on which numeric thresholds make sense.
    public var isNumeric: Bool {
        switch self {
        case .scale, .duration, .count, .yesNo: true
        case .choice, .text: false
        }
    }

    /// Why the format cannot be used, or nil.
    public var validationProblem: (field: String, message: String)? {
        switch self {
        case .scale(let min, let max, let step, let labels):
            for (field, value) in [("min", min), ("max", max), ("step", step)] {
                if let problem = PlanLimits.problem(value, in: PlanLimits.magnitude) { return (field, problem) }
            }
            if !(min < max) { return ("max", "max (\(Self.format(max))) must be above min (\(Self.format(min)))") }
            if !(step > 0) { return ("step", "step must be positive (got \(Self.format(step)))") }
            for value in labels.keys.sorted() where !(min...max).contains(value) {
                return (
                    "labels", "label for \(Self.format(value)) lies outside \(Self.format(min))–\(Self.format(max))"
                )
            }
        case .choice(let options):
            if options.isEmpty { return ("options", "a choice needs at least one option") }
            if Set(options).count != options.count { return ("options", "options must be distinct") }
        default: break
        }
        return nil
    }

    /// Why an answer was refused.
    public struct Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// Reads an answer as typed (`7`, `yes`, `Nausea`, `7h30m`) into the stored number and text.
    /// - Throws: ``Refusal`` saying what is expected.
    public func parse(_ input: String) throws(Refusal) -> (value: Double, text: String?) {
        let trimmed = input.trimmingCharacters(in: .whitespaces)
        switch self {
        case .scale(let min, let max, let step, let labels):
            let number: Double
            if let parsed = Self.number(trimmed) {
                number = parsed
            } else if let labelled = labels.first(where: { $0.value.lowercased() == trimmed.lowercased() }) {
                number = labelled.key
            } else {
                throw Refusal(
                    message: "'\(input)' is not a number on the scale \(Self.format(min))–\(Self.format(max))"
                )
            }
            guard (min...max).contains(number) else {
                throw Refusal(
                    message: "\(Self.format(number)) is outside the scale \(Self.format(min))–\(Self.format(max))"
                )
            }
            let steps = (number - min) / step
            guard abs(steps - steps.rounded()) < 1e-9 else {
                throw Refusal(
                    message: "\(Self.format(number)) is not on the scale's steps of \(Self.format(step)) "
                        + "from \(Self.format(min))"
                )
            }
            return (number, labels[number])
        case .yesNo:
            switch trimmed.lowercased() {
            case "yes", "y", "true", "1": return (1, "yes")
            case "no", "n", "false", "0": return (0, "no")
            default: throw Refusal(message: "'\(input)' is not yes or no")
            }
        case .choice(let options):
            if let index = options.firstIndex(where: { $0.lowercased() == trimmed.lowercased() }) {
                return (Double(index), options[index])
            }
            throw Refusal(message: "'\(input)' is not one of: \(options.joined(separator: ", "))")
        case .text:
            guard !trimmed.isEmpty else { throw Refusal(message: "the answer must not be empty") }
            return (1, input)
        case .duration:
            guard let seconds = Self.seconds(trimmed), PlanLimits.magnitude.contains(seconds), seconds >= 0 else {
                throw Refusal(message: "'\(input)' is not a duration (e.g. 7h30m, 7.5h, 450m, 27000s)")
            }
            return (seconds, nil)
        case .count:
            guard let number = Int(trimmed), number >= 0 else {
                throw Refusal(message: "'\(input)' is not a count (a whole number, 0 or more)")
            }
            return (Double(number), nil)
        }
    }

    /// How a stored answer reads (`7 (severe)`, `yes`, `7h 30m`).
    public func display(value: Double, text: String?) -> String {
        switch self {
        case .scale(_, let max, _, _):
            let shown = "\(Self.format(value))/\(Self.format(max))"
            return text.map { "\(shown) (\($0))" } ?? shown
        case .yesNo, .choice, .text: return text ?? Self.format(value)
        case .duration:
            guard PlanLimits.magnitude.contains(value) else { return Self.format(value) }
            let minutes = Int((value / 60).rounded())
            return minutes % 60 == 0 ? "\(minutes / 60)h" : "\(minutes / 60)h \(minutes % 60)m"
        case .count: return Self.format(value)
        }
    }

    static func number(_ text: String) -> Double? {
        Double(text.replacingOccurrences(of: ",", with: ".")).flatMap { $0.isFinite ? $0 : nil }
    }

    /// `7h30m`, `7.5h`, `450m`, `90s`, `27000` (seconds).
    static func seconds(_ text: String) -> Double? {
        if let plain = number(text) { return plain }
        var total = 0.0
        var digits = ""
        var sawUnit = false
        for character in text.lowercased() where character != " " {
            if character.isNumber || character == "." || character == "," {
                digits.append(character)
                continue
            }
            guard let amount = number(digits) else { return nil }
            switch character {
            case "h": total += amount * 3600
            case "m": total += amount * 60
            case "s": total += amount
            default: return nil
            }
            digits = ""
            sawUnit = true
        }
        return sawUnit && digits.isEmpty ? total : nil
    }

    /// The shortest text for a number (`7`, `7.5`).
    public static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

extension AnswerFormat: Codable {
    private enum CodingKeys: String, CodingKey { case type, min, max, step, labels, options }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decode(String.self, forKey: .type)
        switch type {
        case "scale":
            let labels = try container.decodeIfPresent([String: String].self, forKey: .labels) ?? [:]
            self = .scale(
                min: try container.decode(Double.self, forKey: .min),
                max: try container.decode(Double.self, forKey: .max),
                step: try container.decodeIfPresent(Double.self, forKey: .step) ?? 1,
                labels: Dictionary(
                    uniqueKeysWithValues: labels.compactMap { key, value in
                        Double(key).map { ($0, value) }
                    }
                )
            )
        case "yesNo": self = .yesNo
        case "choice": self = .choice(try container.decode([String].self, forKey: .options))
        case "text": self = .text
        case "duration": self = .duration
        case "count": self = .count
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .type,
                in: container,
                debugDescription: "unknown answer type"
            )
        }
        if let problem = validationProblem {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "\(problem.field): \(problem.message)")
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(typeName, forKey: .type)
        switch self {
        case .scale(let min, let max, let step, let labels):
            try container.encode(min, forKey: .min)
            try container.encode(max, forKey: .max)
            try container.encode(step, forKey: .step)
            if !labels.isEmpty {
                try container.encode(
                    Dictionary(uniqueKeysWithValues: labels.map { (Self.format($0.key), $0.value) }),
                    forKey: .labels
                )
            }
        case .choice(let options): try container.encode(options, forKey: .options)
        default: break
        }
    }
}
