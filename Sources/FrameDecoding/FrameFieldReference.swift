/// A field named in a sample or a time: `weight` (this frame's) or `impedance.resistance` (the merged frame's).
public struct FrameFieldReference: Sendable, Hashable, CustomStringConvertible {
    /// The merged frame's name, nil for this frame.
    public var frame: String?
    public var field: String

    public init(frame: String? = nil, field: String) {
        self.frame = frame
        self.field = field
    }

    /// Parses `field` or `frame.field`; nil when it is neither.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.allSatisfy(Frame.isName) else { return nil }
        switch parts.count {
        case 1: self.init(field: parts[0])
        case 2: self.init(frame: parts[0], field: parts[1])
        default: return nil
        }
    }

    public var description: String { frame.map { "\($0).\(field)" } ?? field }
}
