/// A capture that cannot be read: not a btsnoop file, an unsupported datalink, or a record cut short.
public struct BTSnoopError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: Sendable, Hashable {
        /// The file does not start with the btsnoop identification pattern.
        case notBTSnoop
        /// A version other than 1.
        case unsupportedVersion
        /// A datalink type this importer does not read (only H1, H4 and the Linux monitor are read).
        case unsupportedDatalink
        /// The header or a record header ends before its fixed fields do.
        case truncated
        /// A record's timestamp is outside the years CareBridge stores (1900…9999): a corrupt capture or a
        /// capturing clock that was never set.
        case timeOutOfRange
        /// The file cannot be opened or read (``message`` says why).
        case unreadable
    }

    public var code: Code
    public var message: String
    /// Byte offset in the file where the problem was found.
    public var offset: Int

    public init(code: Code, message: String, offset: Int) {
        self.code = code
        self.message = message
        self.offset = offset
    }

    public var description: String { "at byte \(offset): \(message)" }
}
