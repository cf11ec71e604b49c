/// A place in a recording: `file:line`, or just `file` for a problem with the whole file.
public struct RecordingLocation: Sendable, Hashable, CustomStringConvertible {
    public var file: String
    /// 1-based line number; 0 when the problem is with the whole file (cannot open, cannot write).
    public var line: Int

    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }

    /// `file:line`; a line that is not known (0) is left out rather than shown as `:0`.
    public var description: String { line > 0 ? "\(file):\(line)" : file }
}

/// A line of a recording that could not be used; it is skipped and reported.
public struct RecordingProblem: Sendable, Hashable, CustomStringConvertible {
    public var location: RecordingLocation
    public var message: String

    public init(location: RecordingLocation, message: String) {
        self.location = location
        self.message = message
    }

    public var description: String { "\(location): \(message)" }
}

/// A recording that cannot be read at all (missing file, missing or invalid header).
public struct RecordingError: Error, Sendable, CustomStringConvertible {
    public enum Code: Sendable, Hashable {
        case cannotOpen
        case invalidHeader
        case unsupportedVersion
        case cannotWrite
    }

    public var code: Code
    public var message: String
    public var location: RecordingLocation

    public init(code: Code, message: String, location: RecordingLocation) {
        self.code = code
        self.message = message
        self.location = location
    }

    public var description: String { "\(location): \(message)" }
}
