/// Hex text ⇄ bytes, as payloads appear on the command line and in recordings.
public enum Hex {
    /// Why a hex string could not be read.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// Character offset of the problem in the input (after removing separators).
        public var offset: Int
        public var message: String
        public var description: String { "invalid hex at character \(offset): \(message)" }
    }

    /// Parses hex digits; spaces, colons, dashes and a leading `0x` are allowed as separators.
    public static func bytes(_ text: String) throws(ParseError) -> [UInt8] {
        var digits = Substring(text)
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        var nibbles: [UInt8] = []
        nibbles.reserveCapacity(digits.utf8.count)
        var position = 0
        for byte in digits.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibbles.append(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibbles.append(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibbles.append(byte - UInt8(ascii: "A") + 10)
            case UInt8(ascii: " "), UInt8(ascii: ":"), UInt8(ascii: "-"), UInt8(ascii: "\t"):
                position += 1
                continue
            default:
                throw ParseError(offset: position, message: "'\(Character(Unicode.Scalar(byte)))' is not a hex digit")
            }
            position += 1
        }
        guard nibbles.count % 2 == 0 else {
            throw ParseError(offset: position, message: "odd number of hex digits (\(nibbles.count))")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(nibbles.count / 2)
        var index = 0
        while index < nibbles.count {
            bytes.append(nibbles[index] << 4 | nibbles[index + 1])
            index += 2
        }
        return bytes
    }

    private static let digits = Array("0123456789abcdef".utf8)

    /// The lowercase hex digit of a nibble.
    @inline(__always)
    private static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") - 10 + nibble
    }

    /// Lowercase hex without separators.
    public static func string<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let contiguous = bytes.withContiguousStorageIfAvailable { buffer in
            String(unsafeUninitializedCapacity: buffer.count * 2) { out in
                var position = 0
                for byte in buffer {
                    out[position] = digit(byte >> 4)
                    out[position + 1] = digit(byte & 0x0F)
                    position += 2
                }
                return position
            }
        }
        if let contiguous { return contiguous }
        var utf8: [UInt8] = []
        utf8.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            utf8.append(digits[Int(byte >> 4)])
            utf8.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: utf8, as: UTF8.self)
    }
}
