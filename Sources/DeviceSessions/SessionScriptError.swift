/// Why a session script, a template or a pattern could not be read or used.
public struct SessionScriptError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text (template, pattern, condition) at fault.
    public var text: String
    public var message: String

    public init(_ text: String, _ message: String) {
        self.text = text
        self.message = message
    }

    public var description: String { "'\(text)': \(message)" }
}
