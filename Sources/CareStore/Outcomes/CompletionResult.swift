/// The event a completion was recorded on, and whether the store changed.
public struct CompletionResult: Sendable, Hashable {
    public var event: CareEvent
    /// False when the event already held exactly this (completing twice changes nothing).
    public var changed: Bool
    /// True when the event already had an outcome that this completion replaced (a correction).
    public var corrected: Bool
}
