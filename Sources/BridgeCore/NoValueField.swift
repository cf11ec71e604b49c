public import BridgeFoundation
import GATTDecoding

/// A decoded field that holds an IEEE 11073 special value meaning "no value" (NaN, NRes, reserved): the
/// quantity gets no sample, and `decode` and the pipeline report say which field and why.
public struct NoValueField: Sendable, Hashable {
    /// Dotted path of the field in the decoded fields, e.g. `concentration`.
    public var field: String
    /// The special value's name as the fields show it (`NaN`, `NRes`, `reserved`).
    public var value: String

    public init(field: String, value: String) {
        self.field = field
        self.value = value
    }

    /// What the code means: "invalid result", "not at this resolution", "a reserved code".
    public var reason: String {
        switch value {
        case IEEE11073Special.nan.rawValue: "invalid result"
        case IEEE11073Special.nres.rawValue: "not at this resolution"
        default: "a reserved code"
        }
    }

    /// The no-value fields of decoded `fields`, in field order (nested objects by dotted path).
    public static func find(in fields: JSONObject, prefix: String = "") -> [NoValueField] {
        var found: [NoValueField] = []
        for member in fields.members {
            let key = prefix.isEmpty ? member.key : "\(prefix).\(member.key)"
            switch member.value {
            case .string(let text)
            where text == IEEE11073Special.nan.rawValue || text == IEEE11073Special.nres.rawValue
                || text == IEEE11073Special.reserved.rawValue:
                found.append(NoValueField(field: key, value: text))
            case .object(let nested): found += find(in: nested, prefix: key)
            default: continue
            }
        }
        return found
    }

    /// `{"field", "value", "reason"}`.
    public var json: JSONValue {
        .object(["field": .string(field), "value": .string(value), "reason": .string(reason)])
    }
}
