/// A number typed by a person: decimal digits only.
///
/// `Double(_:)` also reads `0x46` (70), `inf`, `nan` and hexadecimal floats; a reading typed as one of those
/// is a mistake, not a value.
public enum DecimalNumber {
    /// `72.4`, `72,4`, `-3`, `.5`, `1e3`; nil for anything else (hexadecimal, `inf`, `nan`, spaces, two signs).
    public static func parse(_ text: String) -> Double? {
        var bytes = Array(text.utf8)
        var index = 0
        func digits() -> Int {
            let start = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            return index - start
        }
        if index < bytes.count, bytes[index] == 0x2B || bytes[index] == 0x2D { index += 1 }
        var mantissa = digits()
        if index < bytes.count, bytes[index] == 0x2E || bytes[index] == 0x2C {
            bytes[index] = 0x2E  // a decimal comma reads as a point
            index += 1
            mantissa += digits()
        }
        guard mantissa > 0 else { return nil }
        if index < bytes.count, bytes[index] == 0x65 || bytes[index] == 0x45 {
            index += 1
            if index < bytes.count, bytes[index] == 0x2B || bytes[index] == 0x2D { index += 1 }
            guard digits() > 0 else { return nil }
        }
        guard index == bytes.count else { return nil }
        return Double(String(decoding: bytes, as: UTF8.self))
    }
}
