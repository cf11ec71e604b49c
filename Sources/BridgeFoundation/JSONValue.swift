/// A JSON value whose objects keep their keys in insertion order, so decoded fields read in spec order.
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// Serialises the value. `pretty` indents by two spaces, nested lines by `depth` more levels (an element
    /// of an array written one element at a time is at depth 1).
    public func serialized(pretty: Bool = false, depth: Int = 0) -> String {
        var out = ""
        write(into: &out, pretty: pretty, depth: depth)
        return out
    }

    private func write(into out: inout String, pretty: Bool, depth: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .double(let value):
            if value.isFinite {
                out += value.description
            } else {
                out += "null"
            }
        case .string(let value): JSONValue.writeString(value, into: &out)
        case .array(let values):
            if values.isEmpty {
                out += "[]"
                return
            }
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += pretty ? "," : ", " }
                if pretty { JSONValue.newline(&out, depth + 1) }
                value.write(into: &out, pretty: pretty, depth: depth + 1)
            }
            if pretty { JSONValue.newline(&out, depth) }
            out += "]"
        case .object(let object):
            if object.members.isEmpty {
                out += "{}"
                return
            }
            out += "{"
            for (index, member) in object.members.enumerated() {
                if index > 0 { out += pretty ? "," : ", " }
                if pretty { JSONValue.newline(&out, depth + 1) }
                JSONValue.writeString(member.key, into: &out)
                out += ": "
                member.value.write(into: &out, pretty: pretty, depth: depth + 1)
            }
            if pretty { JSONValue.newline(&out, depth) }
            out += "}"
        }
    }

    private static func newline(_ out: inout String, _ depth: Int) {
        out += "\n" + String(repeating: "  ", count: depth)
    }

    /// Appends `value` as a quoted JSON string literal, escaping quotes, backslashes and control characters.
    ///
    /// The one JSON string escaper: the value tree above and the exporters' streaming writers both use it.
    public static func writeString(_ value: String, into out: inout String) {
        out.append("\"")
        var needsEscape = false
        for byte in value.utf8 where byte < 0x20 || byte == 0x22 || byte == 0x5C {
            needsEscape = true
            break
        }
        guard needsEscape else {
            out.append(value)
            out.append("\"")
            return
        }
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out.append("\\\"")
            case "\\": out.append("\\\\")
            case "\n": out.append("\\n")
            case "\r": out.append("\\r")
            case "\t": out.append("\\t")
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out.append("\"")
    }
}
