public import CareStore

/// An ``OutboxChannel`` that sends a store outbox's entries in batches to a receiver that confirms each batch
/// (Nightscout, and the uploads that follow): the pass every such channel runs is ``deliverBatches()``; the channel
/// says what an entry becomes and how a batch is sent. (The hub's channel runs a pass of its own: each of its
/// batches also carries alert changes and brings down the hub's changes.)
///
/// A pass reads the oldest ``batchSize`` entries, sends those that go (``item(for:)``; the others are dropped
/// without sending), and removes all of them only after the receiver confirmed the batch; a failed send ends the
/// pass with the entries still queued, to be retried after the channel's ``retryDelay()``.
public protocol SampleBatchChannel: QueueingOutboxChannel, Actor {
    /// What one entry is sent as.
    associatedtype Item: Sendable

    /// The store's outbox channel name.
    static var storeChannel: String { get }
    /// Items the receiver confirmed, and entries dropped without sending, since the channel was made.
    var sent: Int { get }
    var skipped: Int { get }
    /// Why the receiver refused the channel's credential at its last answer (nil: it did not).
    var refusal: String? { get }

    var store: CareStore { get }
    /// Entries per batch.
    var batchSize: Int { get }
    /// What `entry` is sent as, or nil when it is not sent (dropped from the channel unsent).
    func item(for entry: OutboxEntry) -> Item?

    /// Sends one batch.
    /// - Returns: nil when the receiver confirmed all of it, else why not (for the service's warning).
    func send(_ items: [Item]) async -> String?

    /// When to try again after the last failed send (the channel's back-off, or what the receiver asked for).
    func retryDelay() -> Duration

    /// Called after a confirmed batch: `sent` items, `skipped` entries dropped unsent.
    func confirmed(sent: Int, skipped: Int)
}

extension SampleBatchChannel {
    public nonisolated func pendingCount() async -> Int {
        (try? await store.outboxCount(channel: Self.storeChannel)) ?? -1
    }

    public func deliverDue() async -> OutboxPass {
        await deliverBatches()
    }

    public func refusedCredential() async -> String? { refusal }

    /// One pass: batches until nothing is left or a send fails (see the protocol's notes).
    public func deliverBatches() async -> OutboxPass {
        var delivered = 0
        while !Task.isCancelled {
            let entries: [OutboxEntry]
            do {
                entries = try await store.pendingOutbox(channel: Self.storeChannel, limit: batchSize)
            } catch {
                return OutboxPass(delivered: delivered, failure: "the outbox cannot be read: \(error.message)")
            }
            if entries.isEmpty { break }
            let items = entries.compactMap { item(for: $0) }
            if !items.isEmpty, let failure = await send(items) {
                return OutboxPass(delivered: delivered, failure: failure, retryAfter: retryDelay())
            }
            confirmed(sent: items.count, skipped: entries.count - items.count)
            delivered += entries.count
            do {
                try await store.removeOutboxEntries(entries.map(\.sequence), channel: Self.storeChannel)
            } catch {
                // Sent again on the next pass; the receivers keep each item once.
                return OutboxPass(delivered: delivered, failure: "cannot remove confirmed entries: \(error.message)")
            }
        }
        return OutboxPass(delivered: delivered)
    }
}
