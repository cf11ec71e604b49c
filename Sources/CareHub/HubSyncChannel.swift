import BridgeCore
public import CareStore
public import Foundation
public import Logging
public import MQTTBridge

/// The store's `hub` outbox as an ``OutboxChannel``: the bridge's samples go up to its hub in batches, in the
/// order the bridge stored them, delivered by the one ``OutboxService`` (`carebridge sync push` drains it once,
/// `carebridge run --hub` runs it beside the bridge).
///
/// Samples are queued by the store in the transaction that stores them (and, when the channel is first enabled,
/// every sample the store already holds); an entry is removed only after the hub's receipt for the batch that
/// carried it, so a crash, a lost answer, a hub or PostgreSQL restart loses nothing: the batch is sent again,
/// and the hub stores each id once. A failed push is retried after a back-off (1 s doubling up to
/// ``maximumRetry``).
///
/// Not sent: quarantined samples (until released, which queues them again), deleted samples (retractions are
/// not part of the protocol yet) and readings in the unassigned inbox (assigning one queues it again).
public actor HubSyncChannel: SampleBatchChannel {
    /// The store's outbox channel of the hub.
    public static let storeChannel = "hub"

    public nonisolated let name = "hub"
    public nonisolated let client: HubClient
    /// Entries per batch (at most ``SyncBatch/maximumCount``).
    public nonisolated let batchSize: Int
    public var initialRetry: Duration = .seconds(1)
    public var maximumRetry: Duration = .seconds(60)
    public nonisolated let store: CareStore
    let zone: TimeZone
    let logger: Logger
    /// Failed pushes in a row (the back-off's exponent).
    var failures = 0
    /// Samples the hub confirmed, and entries dropped without sending, since the channel was made.
    public private(set) var sent = 0
    public private(set) var skipped = 0

    /// - Parameters:
    ///   - store: the bridge's store.
    ///   - client: the hub and the bridge's token.
    ///   - zone: the zone the samples' times are written in.
    ///   - batchSize: entries per batch.
    ///   - logger: batches (debug), refusals (through the service's warning).
    public init(store: CareStore, client: HubClient, zone: TimeZone, batchSize: Int = 256, logger: Logger) {
        self.store = store
        self.client = client
        self.zone = zone
        self.batchSize = min(max(batchSize, 1), SyncBatch.maximumCount)
        var logger = logger
        logger[metadataKey: "hub"] = "\(client.hub)"
        self.logger = logger
    }

    /// Starts queueing for the hub: every sample stored from now on, and the first time also every stored one.
    public nonisolated func enable() async throws(CareStoreError) {
        try await store.enableOutbox(channel: Self.storeChannel, includingStored: true)
    }

    // MARK: - OutboxChannel

    public nonisolated func isQueued(by change: StoreChange) -> Bool {
        switch change {
        case .sampleAdded, .sampleDeleted: true
        case .eventUpdated, .taskListChanged: false
        }
    }

    public func deliverDue() async -> OutboxPass {
        await deliverBatches()
    }

    // MARK: - SampleBatchChannel

    public func item(for entry: OutboxEntry) -> SyncMessage? { message(entry) }

    public func send(_ messages: [SyncMessage]) async -> String? {
        do {
            let receipt = try await client.push(SyncBatch(messages: messages))
            logger.debug(
                "batch confirmed",
                metadata: ["hub.received": "\(receipt.received)", "hub.lastSequence": "\(receipt.lastSequence ?? -1)"]
            )
            failures = 0
            return nil
        } catch {
            failures += 1
            return error.description
        }
    }

    public func confirmed(sent: Int, skipped: Int) {
        self.sent += sent
        self.skipped += skipped
    }

    /// The message an entry stands for, or nil when it is not sent (see the type's notes).
    func message(_ entry: OutboxEntry) -> SyncMessage? {
        guard let stored = entry.sample, !stored.sample.isQuarantined, stored.deletedDate == nil,
            let patient = stored.patientID, !stored.isUnassigned
        else { return nil }
        return SyncMessage(
            kind: .sample,
            id: stored.id.uuidString.lowercased(),
            sequence: entry.sequence,
            patient: patient,
            body: stored.sample.json(in: zone)
        )
    }

    /// `initialRetry` doubled per failure in a row after the first, at most `maximumRetry`.
    public func retryDelay() -> Duration {
        OutboxBackoff(initial: initialRetry, maximum: maximumRetry).delay(afterFailures: failures)
    }
}
