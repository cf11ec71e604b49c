public import CareStore

/// An ``OutboxChannel`` that sends a store outbox's entries in batches to a receiver that confirms each batch
/// (the hub, Nightscout): the pass every such channel runs is ``deliverBatches()``; the channel says what an entry
/// becomes and how a batch is sent.
///
/// A pass reads the oldest ``batchSize`` entries, fills what room is left with the channel's companions (items
/// queued outside the sample outbox that travel in the same batches: the hub's alert changes; none by default),
/// sends those that go (``item(for:)``; the others are dropped without sending), and removes all of them only after
/// the receiver confirmed the batch; a failed send ends the pass with everything still queued, to be retried after
/// the channel's ``retryDelay()``.
public protocol SampleBatchChannel: OutboxChannel, Actor {
    /// What one entry is sent as.
    associatedtype Item: Sendable
    /// What is queued outside the sample outbox and sent after its entries (``Never``: nothing).
    associatedtype Companion: Sendable = Never

    /// The store's outbox channel name.
    static var storeChannel: String { get }
    /// Items the receiver confirmed, and entries dropped without sending, since the channel was made.
    var sent: Int { get }
    var skipped: Int { get }
    /// Why the receiver refused the channel's credential on the last attempt (cleared by a confirmed batch).
    var refusal: String? { get }

    /// Starts queueing for the channel (what it takes from now on, and what it wants of the store's history).
    func enable() async throws(CareStoreError)
    var store: CareStore { get }
    /// Entries (and companions) per batch.
    var batchSize: Int { get }
    /// What `entry` is sent as, or nil when it is not sent (dropped from the channel unsent).
    func item(for entry: OutboxEntry) -> Item?

    /// Up to `limit` of the oldest pending companions.
    func pendingCompanions(limit: Int) async throws(CareStoreError) -> [Companion]
    /// What `companion` is sent as, or nil when it is not sent (dropped unsent).
    func item(for companion: Companion) -> Item?
    /// Removes companions the receiver confirmed.
    func removeCompanions(_ companions: [Companion]) async throws(CareStoreError)

    /// Sends one batch.
    /// - Parameters:
    ///   - items: what goes.
    ///   - carrying: how many queued entries and companions the batch stands for (sent or dropped).
    /// - Returns: nil when the receiver confirmed all of it, else why not (for the service's warning).
    func send(_ items: [Item], carrying: Int) async -> String?

    /// When to try again after the last failed send (the channel's back-off, or what the receiver asked for).
    func retryDelay() -> Duration

    /// Called after a confirmed batch: `sent` items, `skipped` entries dropped unsent.
    func confirmed(sent: Int, skipped: Int)
}

extension SampleBatchChannel where Companion == Never {
    public func pendingCompanions(limit: Int) async throws(CareStoreError) -> [Never] { [] }
    public func item(for companion: Never) -> Item? {}
    public func removeCompanions(_ companions: [Never]) async throws(CareStoreError) {}
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
            var companions: [Companion] = []
            do {
                entries = try await store.pendingOutbox(channel: Self.storeChannel, limit: batchSize)
                if entries.count < batchSize {
                    companions = try await pendingCompanions(limit: batchSize - entries.count)
                }
            } catch {
                return OutboxPass(delivered: delivered, failure: "the outbox cannot be read: \(error.message)")
            }
            let carried = entries.count + companions.count
            if carried == 0 { break }
            let items = entries.compactMap { item(for: $0) } + companions.compactMap { item(for: $0) }
            if !items.isEmpty, let failure = await send(items, carrying: carried) {
                return OutboxPass(delivered: delivered, failure: failure, retryAfter: retryDelay())
            }
            confirmed(sent: items.count, skipped: carried - items.count)
            delivered += carried
            do {
                try await store.removeOutboxEntries(entries.map(\.sequence), channel: Self.storeChannel)
                try await removeCompanions(companions)
            } catch {
                // Sent again on the next pass; the receivers keep each item once.
                return OutboxPass(delivered: delivered, failure: "cannot remove confirmed entries: \(error.message)")
            }
        }
        return OutboxPass(delivered: delivered)
    }
}
