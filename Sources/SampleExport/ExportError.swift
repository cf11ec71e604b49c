/// Why an export could not go on.
public struct ExportError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Equatable {
        /// `write(_:)` or `finish()` after `finish()`.
        case finished
        /// The output could not be written.
        case output
    }

    public var code: Code
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "export: \(message)" }

    static func finished(_ writer: String) -> ExportError {
        ExportError(code: .finished, message: "\(writer) was already finished; create a new writer for another export")
    }
}
