/// Appends JSON text without building a value tree: the writers emit millions of small objects.
enum JSONText {
    /// Appends `value` as a quoted JSON string.
    static func appendString(_ value: String, to out: inout String) {
        out.append("\"")
        var needsEscape = false
        for byte in value.utf8 where byte < 0x20 || byte == 0x22 || byte == 0x5C {
            needsEscape = true
            break
        }
        if !needsEscape {
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

    /// The shortest text that reads back as exactly `value` (`70.5`, `1e-05`); nil when not finite.
    static func number(_ value: Double) -> String? {
        value.isFinite ? value.description : nil
    }
}
