/// What changed about an alert, as delivered to a channel.
public enum AlertChange: String, Sendable, Hashable, CaseIterable {
    case raised, acknowledged, withdrawn
}
