import BridgeCore
import BridgeFoundation
public import CareStore
public import Foundation
import Insights
public import Logging
public import MQTTBridge

/// The store's `hub` outboxes as a ``SampleBatchChannel``: the bridge's samples and outcomes, and its alert changes
/// (the batches' companions), go up to its hub in batches, in the order the bridge wrote them, delivered by the one
/// ``OutboxService``
/// (`carebridge sync push` drains it once, `carebridge run --hub` runs it beside the bridge).
///
/// Samples and outcomes are queued by the store in the transaction that writes them (`outboxEntry`, channel
/// `hub`; an outcome's entry moves to the end whenever it changes or is undone, and is read when sent: see
/// `OutcomeOutboxSchema`), alert changes by the alert outbox (`alertDelivery`, channel `hub`); when the channel is
/// first enabled, every sample and outcome the store already holds and every open alert are queued too. An entry
/// is removed only after the hub's receipt for the batch that carried it, so a crash, a lost answer, a hub or
/// PostgreSQL restart loses nothing: the batch is sent again, and the hub stores each id once (an outcome's
/// newest state wins by its sequence). A failed push is retried after a back-off (1 s doubling up to
/// ``maximumRetry``).
///
/// Not sent: quarantined samples (until released, which queues them again), deleted samples (retractions are
/// not part of the protocol yet), readings in the unassigned inbox (assigning one queues it again), and outcomes
/// and alerts of a store without patients (the hub files everything under a patient).
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
    /// Messages the hub confirmed, and entries dropped without sending, since the channel was made.
    public private(set) var sent = 0
    public private(set) var skipped = 0
    /// The last failure when the hub did not know the bridge's token (cleared by the hub's next other answer).
    public private(set) var refusal: String?

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

    /// Starts queueing for the hub: every sample, outcome and alert change from now on, and the first time also
    /// every stored sample and outcome and every open alert.
    public func enable() async throws(CareStoreError) {
        try await store.enableOutbox(channel: Self.storeChannel, includingStored: true)
        try store.enableAlertChannel(Self.storeChannel)
    }

    // MARK: - OutboxChannel

    public nonisolated func isQueued(by change: StoreChange) -> Bool {
        switch change {
        case .sampleAdded, .sampleDeleted, .eventUpdated: true
        case .taskListChanged: false
        }
    }

    public nonisolated func pendingCount() async -> Int {
        do {
            return try await store.outboxCount(channel: Self.storeChannel)
                + store.alertDeliveryCount(channel: Self.storeChannel)
        } catch {
            return -1
        }
    }

    // MARK: - SampleBatchChannel

    /// Alert changes ride in the room a batch of samples and outcomes leaves.
    public func pendingCompanions(limit: Int) async throws(CareStoreError) -> [AlertDelivery] {
        try await store.pendingAlertDeliveries(channel: Self.storeChannel, limit: limit, now: .distantFuture)
    }

    public func removeCompanions(_ companions: [AlertDelivery]) async throws(CareStoreError) {
        for alert in companions { try await store.completeAlertDelivery(sequence: alert.sequence) }
    }

    /// Pushes one batch with the backlog behind it (what waits beyond the entries it carries).
    public func send(_ messages: [SyncMessage], carrying: Int) async -> String? {
        let waiting = await pendingCount()
        let backlog = waiting < 0 ? nil : max(waiting - carrying, 0)
        do {
            let receipt = try await client.push(SyncBatch(messages: messages, pending: backlog))
            logger.debug(
                "batch confirmed",
                metadata: ["hub.received": "\(receipt.received)", "hub.lastSequence": "\(receipt.lastSequence ?? -1)"]
            )
            failures = 0
            refusal = nil
            return nil
        } catch {
            failures += 1
            // Only an answer changes what is known about the token (a cancelled or failed connection does not).
            if error.status != nil { refusal = error.status == 401 ? error.description : nil }
            return error.description
        }
    }

    public func confirmed(sent: Int, skipped: Int) {
        self.sent += sent
        self.skipped += skipped
    }

    /// The message an entry stands for, or nil when it is not sent (see the type's notes).
    public func item(for entry: OutboxEntry) -> SyncMessage? {
        if let outcome = entry.outcome { return message(outcome, sequence: entry.sequence) }
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

    /// An outcome's state now: `{"task", "taskVersion", "occurrence", "eventStart", "state", "outcome",
    /// "undoneAt", "undoneBy"}`, `outcome` in the form the undo record keeps.
    func message(_ outcome: OutboxOutcome, sequence: Int64) -> SyncMessage? {
        guard let patient = outcome.patientID else { return nil }
        let time = { (date: Date?) -> JSONValue in date.map { .string(Timestamp.format($0, in: self.zone)) } ?? .null }
        let recorded = outcome.outcome.flatMap { try? JSONValue.parse(Array($0.utf8)) } ?? .null
        return SyncMessage(
            kind: .outcome,
            id: outcome.id,
            sequence: sequence,
            patient: patient,
            body: .object([
                "task": .string(outcome.taskID), "taskVersion": .string(outcome.taskUUID.lowercased()),
                "occurrence": .int(outcome.occurrence), "eventStart": time(outcome.eventStart),
                "state": .string(outcome.state.rawValue), "outcome": recorded, "undoneAt": time(outcome.undoneAt),
                "undoneBy": outcome.undoneBy.map { .string($0) } ?? .null,
            ])
        )
    }

    /// An alert change: `{"change", "alert"}` with the alert as `carebridge alerts --json` shows it. Its id,
    /// `<alert>/<change>/<delivery sequence>`, is the same when the change is sent again and differs when an
    /// alert is raised again after a withdrawal.
    public func item(for delivery: AlertDelivery) -> SyncMessage? {
        guard let patient = delivery.alert.patientID else { return nil }
        return SyncMessage(
            kind: .alert,
            id: "\(delivery.alert.id)/\(delivery.change.rawValue)/\(delivery.sequence)",
            sequence: delivery.sequence,
            patient: patient,
            body: .object(["change": .string(delivery.change.rawValue), "alert": delivery.alert.json(in: zone)])
        )
    }

    /// `initialRetry` doubled per failure in a row after the first, at most `maximumRetry`.
    public func retryDelay() -> Duration {
        OutboxBackoff(initial: initialRetry, maximum: maximumRetry).delay(afterFailures: failures)
    }
}
