import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// Device-provided text (Bluetooth names, Device Information strings, recording notes and errors) made harmless
/// for a terminal: control characters (C0, DEL, C1: escape sequences that could move the cursor, retitle the
/// window or rewrite earlier lines) and bidirectional overrides (which reorder what is shown) become visible
/// `\u{…}` escapes. Printable text, including non-Latin scripts and emoji, is unchanged.
enum TerminalText {
    static func sanitize(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Like ``sanitize(_:)`` for a whole document shown on a terminal (an export): line breaks (LF, CRLF) are
    /// kept; a lone carriage return is still escaped (it would overwrite the line).
    static func sanitizeKeepingLineBreaks(_ text: String) -> String {
        // By scalar: CRLF is one Character in Swift, so splitting by Character would not see it.
        let scalars = Array(text.unicodeScalars)
        var result = ""
        var line = String.UnicodeScalarView()
        for (index, scalar) in scalars.enumerated() {
            let lineBreak =
                scalar == "\n" || (scalar == "\r" && index + 1 < scalars.count && scalars[index + 1] == "\n")
            guard lineBreak else {
                line.append(scalar)
                continue
            }
            result += sanitize(String(line))
            result.unicodeScalars.append(scalar)
            line = String.UnicodeScalarView()
        }
        return result + sanitize(String(line))
    }

    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true  // direction marks, embeddings, isolates
        default: false
        }
    }

    /// The log handler of the command line: swift-log's stream handler on standard error, with the message and
    /// metadata values sanitised (they carry device names and addresses).
    static func logHandler(label: String) -> any LogHandler {
        SanitizingLogHandler(wrapped: StreamLogHandler.standardError(label: label))
    }
}

/// Passes every record on with its message and metadata values run through ``TerminalText/sanitize(_:)``.
struct SanitizingLogHandler: LogHandler {
    var wrapped: any LogHandler

    var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = newValue }
    }

    var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { wrapped[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        event.message = Logger.Message(stringLiteral: TerminalText.sanitize(event.message.description))
        event.metadata = event.metadata?.mapValues(Self.sanitize)
        wrapped.log(event: event)
    }

    static func sanitize(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): .string(TerminalText.sanitize(text))
        case .stringConvertible(let convertible): .string(TerminalText.sanitize(convertible.description))
        case .array(let values): .array(values.map(sanitize))
        case .dictionary(let values): .dictionary(values.mapValues(sanitize))
        }
    }
}
