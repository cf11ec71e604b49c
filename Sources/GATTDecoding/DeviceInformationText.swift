import BridgeFoundation

/// The shared reading of the Device Information Service string characteristics (Manufacturer Name, Model
/// Number, Serial Number, Hardware/Firmware/Software Revision).
///
/// The value has no length prefix or terminator. Devices pad it with NUL or spaces: trailing NUL and
/// whitespace are trimmed, and invalid UTF-8 becomes U+FFFD (one per maximal invalid subpart, as the standard
/// library does) rather than an error.
/// - SeeAlso: Device Information Service 1.1; `gatt-reference.md` §11.
public struct DeviceInformationText: Sendable, Hashable {
    /// The decoded, trimmed text.
    var value: String
    /// The bytes as sent (untrimmed).
    var raw: [UInt8]
    /// True when some bytes were not valid UTF-8 and were replaced.
    var hadInvalidUTF8: Bool

    init(from reader: inout ByteReader) {
        raw = reader.readRemaining()
        // ASCII padding (NUL, space, tab, CR, LF, VT, FF) is trimmed on the bytes, other Unicode whitespace after.
        var end = raw.count
        while end > 0, raw[end - 1] == 0x00 || raw[end - 1] == 0x20 || (0x09...0x0D).contains(raw[end - 1]) {
            end -= 1
        }
        var scalars: String.UnicodeScalarView
        (scalars, hadInvalidUTF8) = Self.decodeUTF8(raw, end: end)
        while let last = scalars.last, last == "\0" || last.properties.isWhitespace {
            scalars.removeLast()
        }
        value = String(scalars)
    }

    /// UTF-8 → scalars with U+FFFD for each maximal invalid subpart (Unicode §3.9 "best practice").
    ///
    /// Hand-written because `String(decoding:as:)`'s repair path is very slow on mostly-invalid input.
    static func decodeUTF8(_ bytes: [UInt8], end: Int) -> (String.UnicodeScalarView, invalid: Bool) {
        var scalars = String.UnicodeScalarView()
        var invalid = false
        var index = 0
        while index < end {
            let lead = bytes[index]
            if lead < 0x80 {
                scalars.append(Unicode.Scalar(lead))
                index += 1
                continue
            }
            // Continuation count and the allowed range of the first continuation byte (excludes overlongs,
            // surrogates and values above U+10FFFF).
            let count: Int
            var lower: UInt8 = 0x80
            var upper: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: count = 1
            case 0xE0:
                count = 2
                lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: count = 2
            case 0xED:
                count = 2
                upper = 0x9F
            case 0xF0:
                count = 3
                lower = 0x90
            case 0xF1...0xF3: count = 3
            case 0xF4:
                count = 3
                upper = 0x8F
            default: count = 0
            }
            var value = UInt32(lead) & (count == 1 ? 0x1F : count == 2 ? 0x0F : 0x07)
            var next = index + 1
            var complete = count > 0
            for position in 0..<count {
                guard next < end else {
                    complete = false
                    break
                }
                let byte = bytes[next]
                guard byte >= (position == 0 ? lower : 0x80), byte <= (position == 0 ? upper : 0xBF) else {
                    complete = false
                    break
                }
                value = value << 6 | UInt32(byte & 0x3F)
                next += 1
            }
            if complete, let scalar = Unicode.Scalar(value) {
                scalars.append(scalar)
            } else {
                scalars.append("\u{FFFD}")
                invalid = true
            }
            index = next
        }
        return (scalars, invalid)
    }

    var fields: JSONObject {
        var fields: JSONObject = ["value": .string(value)]
        if hadInvalidUTF8 {
            fields["invalidUTF8"] = .bool(true)
            fields["raw"] = .string(Hex.string(raw))
        }
        return fields
    }
}
