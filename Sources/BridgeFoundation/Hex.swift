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
    ///
    /// One pass into the result (every recording line's value goes through here): a digit waits for its partner
    /// instead of a second array of nibbles.
    public static func bytes(_ text: String) throws(ParseError) -> [UInt8] {
        var digits = Substring(text)
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.utf8.count / 2)
        var high: UInt8?
        var position = 0
        for byte in digits.utf8 {
            let nibble: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = byte - UInt8(ascii: "A") + 10
            case UInt8(ascii: " "), UInt8(ascii: ":"), UInt8(ascii: "-"), UInt8(ascii: "\t"):
                position += 1
                continue
            default:
                throw ParseError(offset: position, message: "'\(Character(Unicode.Scalar(byte)))' is not a hex digit")
            }
            position += 1
            if let pending = high {
                bytes.append(pending << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        guard high == nil else {
            throw ParseError(offset: position, message: "odd number of hex digits (\(bytes.count * 2 + 1))")
        }
        return bytes
    }

    private static let digits = Array("0123456789abcdef".utf8)

    /// The lowercase hex digit of a nibble.
    @inline(__always)
    private static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") - 10 + nibble
    }

    /// Writes `bytes` as lowercase hex without separators into `buffer`, which must hold two characters a byte;
    /// returns how many it wrote. For text assembled in place (a sample's idempotency key), where ``string(_:)``
    /// would allocate a string only to copy it.
    public static func write<Bytes: Collection>(
        _ bytes: Bytes,
        into buffer: UnsafeMutableBufferPointer<UInt8>
    ) -> Int where Bytes.Element == UInt8 {
        precondition(buffer.count >= bytes.count * 2, "Hex.write: the buffer is too small")
        var position = 0
        for byte in bytes {
            buffer[position] = digit(byte >> 4)
            buffer[position + 1] = digit(byte & 0x0F)
            position += 2
        }
        return position
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
