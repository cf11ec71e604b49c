import BridgeFoundation

/// Numbers in JSON text without building a value tree (strings go through ``JSONValue/writeString(_:into:)``).
enum JSONText {
    /// Appends `value` as a quoted JSON string.
    static func appendString(_ value: String, to out: inout String) {
        JSONValue.writeString(value, into: &out)
    }

    /// The shortest text that reads back as exactly `value` (`70.5`, `1e-05`); nil when not finite.
    static func number(_ value: Double) -> String? {
        value.isFinite ? value.description : nil
    }
}
