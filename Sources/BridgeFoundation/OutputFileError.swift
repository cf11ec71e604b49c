/// Why an output file could not be written; the existing file at ``path`` (if any) is unchanged.
public struct OutputFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// The output is one of the command's inputs (writing it would destroy the input).
        case sameAsInput
        /// The output path names a directory.
        case isDirectory
        /// The file (or its temporary file) cannot be created.
        case cannotCreate
        /// Writing, syncing or renaming failed.
        case cannotWrite
    }

    public var code: Code
    /// The output path as the user gave it.
    public var path: String
    public var message: String

    public init(code: Code, path: String, message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}
