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
        guard let dot = text.lastIndex(of: ".") else {
            guard Frame.isName(text) else { return nil }
            self.init(field: text)
            return
        }
        let frame = String(text[..<dot])
        let field = String(text[text.index(after: dot)...])
        guard Frame.isFrameName(frame), Frame.isName(field) else { return nil }
        self.init(frame: frame, field: field)
    }

    public var description: String { frame.map { "\($0).\(field)" } ?? field }
}
