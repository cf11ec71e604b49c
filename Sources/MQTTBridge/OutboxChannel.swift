public import CareStore

/// One channel of an outbox, as the ``OutboxService`` delivers it: sample state messages, alert sensors, webhooks
/// (and the uploads that follow). The channel knows its entries and its receiver; the service decides when a pass
/// runs (a store change, the poll, a retry's back-off) and drains it at shutdown.
public protocol OutboxChannel: Sendable {
    /// The channel's name, for logs and messages.
    var name: String { get }

    /// Whether a committed store change may have queued something for this channel (the service then runs a pass
    /// at once instead of at the next poll).
    func isQueued(by change: StoreChange) -> Bool

    /// Delivers what is due, oldest first, until nothing due is left or a delivery fails; what is not confirmed
    /// stays queued.
    func deliverDue() async -> OutboxPass

    /// How many entries wait, due or not (-1 when the store cannot say).
    func pendingCount() async -> Int

    /// Why the receiver refused the channel's credential on the last attempt (retrying cannot help until someone
    /// changes it: a drain stops waiting), or nil.
    func refusedCredential() async -> String?
}

extension OutboxChannel {
    public func refusedCredential() async -> String? { nil }
}

/// What one pass over a channel did.
public struct OutboxPass: Sendable, Hashable {
    /// Entries confirmed by the receiver and removed.
    public var delivered: Int
    /// Why the pass stopped before nothing due was left (the receiver failed, the store refused); nil otherwise.
    public var failure: String?
    /// When to try again after a failure (the channel's back-off); nil: at the next poll.
    public var retryAfter: Duration?

    public init(delivered: Int, failure: String? = nil, retryAfter: Duration? = nil) {
        self.delivered = delivered
        self.failure = failure
        self.retryAfter = retryAfter
    }
}
