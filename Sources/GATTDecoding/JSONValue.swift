/// A JSON value whose objects keep their keys in insertion order, so decoded fields read in spec order.
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// Serialises the value. `pretty` indents by two spaces.
    public func serialized(pretty: Bool = false) -> String {
        var out = ""
        write(into: &out, pretty: pretty, depth: 0)
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
    public static func writeString(_ value: String, into out: inout String) {
        out += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

/// An ordered JSON object.
public struct JSONObject: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    public struct Member: Sendable, Equatable {
        public var key: String
        public var value: JSONValue
    }

    public private(set) var members: [Member]
    /// Key → position in ``members``, kept once an object has more than ``indexThreshold`` members: a search
    /// per key made an object with many keys (a crafted recording line) quadratic to parse. Small objects (every
    /// ordinary line) search their few members and allocate no dictionary.
    private var positions: [String: Int] = [:]
    private static let indexThreshold = 8

    public init() {
        members = []
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        members = []
        for (key, value) in elements { self[key] = value }
    }

    private func position(of key: String) -> Int? {
        if members.count > Self.indexThreshold { return positions[key] }
        return members.firstIndex { $0.key == key }
    }

    private mutating func reindex() {
        positions = [:]
        guard members.count > Self.indexThreshold else { return }
        positions.reserveCapacity(members.count)
        for (index, member) in members.enumerated() { positions[member.key] = index }
    }

    /// The value for `key`; setting appends a new key or replaces an existing one in place.
    public subscript(key: String) -> JSONValue? {
        get { position(of: key).map { members[$0].value } }
        set {
            if let index = position(of: key) {
                if let newValue {
                    members[index].value = newValue
                } else {
                    members.remove(at: index)
                    reindex()
                }
            } else if let newValue {
                members.append(Member(key: key, value: newValue))
                if members.count > Self.indexThreshold + 1 {
                    positions[key] = members.count - 1
                } else if members.count == Self.indexThreshold + 1 {
                    reindex()
                }
            }
        }
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool { lhs.members == rhs.members }

    public var keys: [String] { members.map(\.key) }
}
