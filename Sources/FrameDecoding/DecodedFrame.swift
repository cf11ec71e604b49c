public import BridgeCore
public import BridgeFoundation

/// A value decoded by the frame that selected it: its fields in the frame's order and whether it is final.
public struct DecodedFrame: Sendable, Hashable {
    /// The frame's name.
    public var frame: String
    public var fields: [DecodedField]
    /// False for an intermediate frame (its `final` conditions do not hold): decoded and logged, never stored.
    public var isFinal: Bool

    public init(frame: String, fields: [DecodedField], isFinal: Bool) {
        self.frame = frame
        self.fields = fields
        self.isFinal = isFinal
    }

    public func field(_ name: String) -> DecodedField? {
        fields.first { $0.name == name }
    }

    /// The fields' raw integers as condition variables (a field without a value is left out, so `name` is false
    /// and a comparison with it is false).
    public var variables: SessionVariables {
        var variables: SessionVariables = [:]
        for field in fields where field.value != nil {
            if let raw = field.raw {
                variables[field.name] = .integer(raw)
            } else if let number = field.value?.number, number == number.rounded(), abs(number) < 1e15 {
                variables[field.name] = .integer(Int(number))
            }
        }
        return variables
    }

    /// `{"weight": 72.35, "unit": "kg", "temp": null}` for logs, `decode` and fixtures' diffs.
    public var json: JSONObject {
        var object = JSONObject()
        for field in fields {
            switch field.value {
            case .number(let number)?:
                // Scaled values show as written (0.01 × 7235 is 72.35, not 72.35000000000001).
                let shown = abs(number) < 1e6 ? (number * 1e9).rounded() / 1e9 : number
                object[field.name] = shown == shown.rounded() && abs(shown) < 1e15 ? .int(Int(shown)) : .double(shown)
            case .some(let value): object[field.name] = .string(value.description)
            case nil:
                object[field.name] = field.comparator.map { .string($0 == .lessThan ? "LO" : "HI") } ?? .null
            }
        }
        return object
    }
}
