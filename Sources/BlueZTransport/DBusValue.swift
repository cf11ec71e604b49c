/// A D-Bus value together with its wire type.
///
/// Everything above `SDBusCalls.swift` sees only these: the C marshalling lives in that one file.
public indirect enum DBusValue: Sendable, Hashable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// `ay`, kept as bytes (characteristic values, service data).
    case bytes([UInt8])
    /// `a<element>` for any element type except bytes and dictionary entries.
    case array(element: String, [DBusValue])
    /// `a{<key><value>}`, entries in wire order.
    case dictionary(key: String, value: String, [DictionaryEntry])
    case variant(DBusValue)
    case structure([DBusValue])

    public struct DictionaryEntry: Sendable, Hashable {
        public var key: DBusValue
        public var value: DBusValue

        public init(_ key: DBusValue, _ value: DBusValue) {
            self.key = key
            self.value = value
        }
    }

    /// The D-Bus type signature of this value.
    public var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .bytes: "ay"
        case .array(let element, _): "a" + element
        case .dictionary(let key, let value, _): "a{" + key + value + "}"
        case .variant: "v"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        }
    }

    /// An `a{sv}` dictionary (D-Bus property maps, option dictionaries).
    public static func properties(_ entries: [String: DBusValue]) -> DBusValue {
        .dictionary(
            key: "s",
            value: "v",
            entries.sorted { $0.key < $1.key }.map { DictionaryEntry(.string($0.key), .variant($0.value)) }
        )
    }

    /// An `as` array.
    public static func strings(_ values: [String]) -> DBusValue {
        .array(element: "s", values.map { .string($0) })
    }
}

// MARK: - Typed access

extension DBusValue {
    /// The value inside any number of variant wrappers.
    public var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    public var string: String? {
        switch unwrapped {
        case .string(let s), .objectPath(let s), .signature(let s): s
        default: nil
        }
    }

    public var bool: Bool? {
        if case .boolean(let b) = unwrapped { return b }
        return nil
    }

    /// Any integer type, widened.
    public var integer: Int? {
        switch unwrapped {
        case .byte(let v): Int(v)
        case .int16(let v): Int(v)
        case .uint16(let v): Int(v)
        case .int32(let v): Int(v)
        case .uint32(let v): Int(v)
        case .int64(let v): Int(v)
        case .uint64(let v): Int(exactly: v)
        default: nil
        }
    }

    /// `ay` (or an array of bytes however it was marshalled).
    public var bytes: [UInt8]? {
        switch unwrapped {
        case .bytes(let b): return b
        case .array(_, let values):
            var out: [UInt8] = []
            for value in values {
                guard case .byte(let b) = value.unwrapped else { return nil }
                out.append(b)
            }
            return out
        default: return nil
        }
    }

    /// `as` / `ao`.
    public var stringArray: [String]? {
        guard case .array(_, let values) = unwrapped else {
            if case .dictionary(_, _, let entries) = unwrapped, entries.isEmpty { return [] }
            return nil
        }
        return values.compactMap(\.string)
    }

    /// Dictionary entries of any `a{..}`.
    public var entries: [DictionaryEntry]? {
        switch unwrapped {
        case .dictionary(_, _, let entries): entries
        case .array(_, let values) where values.isEmpty: []
        default: nil
        }
    }

    /// An `a{sv}`-style dictionary keyed by string, values unwrapped from their variants.
    public var stringKeyed: [String: DBusValue]? {
        guard let entries else { return nil }
        var out: [String: DBusValue] = [:]
        for entry in entries {
            guard let key = entry.key.string else { return nil }
            out[key] = entry.value.unwrapped
        }
        return out
    }
}
