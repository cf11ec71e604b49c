/// A payload that cannot be decoded: names the characteristic (or advertisement format), the byte offset
/// and what was expected there.
public struct GATTDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why decoding stopped.
    public enum Reason: Sendable, Equatable {
        /// Fewer bytes were left than `field` needs.
        case insufficientBytes(field: String, expected: Int, available: Int)
        /// A field held a value the specification does not allow.
        case invalidValue(field: String, raw: UInt64, expected: String)
        /// Bytes were left over where the format requires an exact length.
        case unexpectedLength(expected: String, actual: Int)
    }

    /// Characteristic or format name, e.g. `Weight Measurement (2A9D)`.
    public var context: String
    /// Byte offset at which the problem was found.
    public var offset: Int
    public var reason: Reason

    public init(context: String, offset: Int, reason: Reason) {
        self.context = context
        self.offset = offset
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case .insufficientBytes(let field, let expected, let available):
            return "\(context): at byte \(offset), expected \(expected) byte(s) for \(field) but only \(available) left"
        case .invalidValue(let field, let raw, let expected):
            return "\(context): at byte \(offset), \(field) is \(raw), expected \(expected)"
        case .unexpectedLength(let expected, let actual):
            return "\(context): payload is \(actual) byte(s), expected \(expected)"
        }
    }
}
