import BridgeFoundation

/// Names for status and feature bit fields and for small enumerated codes, shared by the decoders.
enum BitNames {
    /// The names of the bits set in `value`, lowest bit first. Bits without a name (RFU) read `reserved bit N`,
    /// so a frame that sets them still shows it.
    static func names(of value: UInt32, _ table: [String?]) -> [String] {
        var result: [String] = []
        var remaining = value
        var bit = 0
        while remaining != 0 {
            if remaining & 1 != 0 {
                let name = bit < table.count ? table[bit] : nil
                result.append(name ?? "reserved bit \(bit)")
            }
            remaining >>= 1
            bit += 1
        }
        return result
    }

    /// `names(of:_:)` as a JSON array of strings.
    static func field(_ value: UInt32, _ table: [String?]) -> JSONValue {
        .array(names(of: value, table).map { .string($0) })
    }

    /// The name of an enumerated code, or `reserved` for a code the specification does not define.
    static func code(_ value: Int, _ table: [Int: String]) -> String {
        table[value] ?? "reserved"
    }
}
