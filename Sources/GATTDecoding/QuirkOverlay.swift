/// A profile entry's quirks bound, when the profile loads, to the payload type that undoes them.
public struct QuirkOverlay: Sendable, Hashable {
    /// The payload type whose layout the quirks are undone in.
    public let layout: any QuirkOverlaying.Type
    public let quirks: PayloadQuirks

    /// The overlay of `quirks` for values read by `type`; nil when there are no quirks, or when `type` cannot undo
    /// them (``PayloadQuirks/problem(for:)`` says why).
    public init?(_ quirks: PayloadQuirks, for type: any GATTPayload.Type) {
        guard !quirks.isEmpty, quirks.problem(for: type) == nil, let layout = type as? any QuirkOverlaying.Type else {
            return nil
        }
        self.layout = layout
        self.quirks = quirks
    }

    /// The device's bytes in the standard layout.
    public func standardised(_ bytes: [UInt8]) -> [UInt8] {
        layout.standardised(bytes, undoing: quirks)
    }

    public static func == (lhs: QuirkOverlay, rhs: QuirkOverlay) -> Bool {
        ObjectIdentifier(lhs.layout) == ObjectIdentifier(rhs.layout) && lhs.quirks == rhs.quirks
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(layout))
        hasher.combine(quirks)
    }
}
