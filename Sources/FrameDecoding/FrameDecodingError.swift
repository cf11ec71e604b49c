/// Why a value could not be decoded by the frame that selected it: a field outside the value, a checksum that
/// does not match, a time that is not a date.
public struct FrameDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The frame's name.
    public var frame: String
    public var message: String

    public init(frame: String, message: String) {
        self.frame = frame
        self.message = message
    }

    public var description: String { "frame \(frame): \(message)" }
}
