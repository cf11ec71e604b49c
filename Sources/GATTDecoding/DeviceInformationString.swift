/// The shared reading of the Device Information Service string characteristics (Manufacturer Name, Model
/// Number, Serial Number, Hardware/Firmware/Software Revision).
///
/// The value has no length prefix or terminator. Devices pad it with NUL or spaces: trailing NUL and
/// whitespace are trimmed, and invalid UTF-8 becomes U+FFFD rather than an error.
/// - SeeAlso: Device Information Service 1.1; `gatt-reference.md` §11.
struct DeviceInformationText: Sendable, Hashable {
    /// The decoded, trimmed text.
    var value: String
    /// The bytes as sent (untrimmed).
    var raw: [UInt8]

    init(from reader: inout ByteReader) {
        raw = reader.readRemaining()
        var text = Substring(String(decoding: raw, as: UTF8.self))
        while let last = text.unicodeScalars.last, last == "\0" || last.properties.isWhitespace {
            text = Substring(text.unicodeScalars.dropLast())
        }
        value = String(text)
    }

    /// True when some bytes were not valid UTF-8 and were replaced.
    var hadInvalidUTF8: Bool { String(validating: raw, as: UTF8.self) == nil }

    var fields: JSONObject {
        var fields: JSONObject = ["value": .string(value)]
        if hadInvalidUTF8 {
            fields["invalidUTF8"] = .bool(true)
            fields["raw"] = .string(Hex.string(raw))
        }
        return fields
    }
}
