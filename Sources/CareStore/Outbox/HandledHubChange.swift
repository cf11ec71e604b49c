/// A change that came down from the hub and that this bridge has dealt with: applied, or refused with the reason
/// (``CareStore/recordHubChange(_:at:)``).
public struct HandledHubChange: Sendable, Hashable {
    /// The hub's sequence of the change.
    public var sequence: Int64
    /// `plan`, `acknowledgement` or `quarantine`.
    public var kind: String
    /// Why the bridge did not apply it; nil when it was applied.
    public var refusal: String?

    public init(sequence: Int64, kind: String, refusal: String? = nil) {
        self.sequence = sequence
        self.kind = kind
        self.refusal = refusal
    }
}
