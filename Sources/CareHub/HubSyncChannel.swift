import BridgeCore
import BridgeFoundation
import CarePlan
public import CareStore
public import Foundation
import Insights
public import Logging
public import MQTTBridge

/// The store's `hub` outboxes as an ``OutboxChannel`` (a pass of its own, not ``SampleBatchChannel``'s: each batch
/// also brings down the hub's changes and reports what became of them): the bridge's samples, outcomes and alert changes go up to
/// its hub in batches, in the order the bridge wrote them, delivered by the one ``OutboxService``
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
/// A sample deleted or replaced after it went up is queued again at its deletion and goes up as its retraction
/// (the hub marks the sample, never deletes it). A quarantined sample goes up as `quarantined`, which the hub holds
/// apart from the record for the care team to decide on; released, it goes up again as a sample, and deleted
/// (rejected) as its retraction. Each pass that talks to the hub also carries each patient's
/// devices whose facts (address, name, model, serial, firmware, battery, last reading) differ from those the hub
/// last confirmed (all of them after a restart: the hub keeps the newest).
///
/// Not sent: samples deleted before they went up, the quarantine of a sample released before it went up (it goes
/// up as released), readings in the unassigned inbox (assigning one queues it again), and outcomes and alerts of a store without
/// patients (the hub files everything under a patient).
public actor HubSyncChannel: QueueingOutboxChannel {
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
    /// Changes from the hub applied and refused since the channel was made.
    public private(set) var applied = 0
    public private(set) var refused = 0
    /// The last failure when the hub refused the bridge's token or certificate (cleared by the hub's next other
    /// answer).
    public private(set) var refusal: String?
    /// How often the channel asks the hub for changes when it has nothing to send (every batch asks too).
    public var pullInterval: Duration = .seconds(60)
    /// When the channel last heard from the hub; nil: not yet (the first pass asks at once).
    var lastPull: ContinuousClock.Instant?
    /// The hub said it has more changes than its last answer carried.
    var morePending = false
    let now: @Sendable () -> ContinuousClock.Instant
    /// The wall clock device facts are stamped with (their sequence at the hub).
    let wallClock: @Sendable () -> Date
    /// The device facts the hub confirmed, by patient and device key.
    var confirmedFacts: [String: JSONValue] = [:]

    /// - Parameters:
    ///   - store: the bridge's store.
    ///   - client: the hub and the bridge's token.
    ///   - zone: the zone the samples' times are written in.
    ///   - batchSize: entries per batch.
    ///   - logger: batches (debug), refusals (through the service's warning), changes from the hub.
    ///   - now: the clock of ``pullInterval``.
    ///   - wallClock: the time device facts are read at.
    public init(
        store: CareStore,
        client: HubClient,
        zone: TimeZone,
        batchSize: Int = 256,
        logger: Logger,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
        wallClock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.now = now
        self.wallClock = wallClock
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
    public nonisolated func enable() async throws(CareStoreError) {
        try await store.enableOutbox(channel: Self.storeChannel, includingStored: true)
        try await store.enableAlertChannel(Self.storeChannel)
    }

    // MARK: - OutboxChannel

    public nonisolated func isQueued(by change: StoreChange) -> Bool {
        switch change {
        case .sampleAdded, .sampleDeleted, .eventUpdated: true
        case .taskListChanged: false
        }
    }

    /// Entries waiting, plus one while a pull from the hub is due and one per outcome of a change the hub has not
    /// confirmed: a drain (`sync push`) also brings down what the hub has for the bridge.
    public func pendingCount() async -> Int {
        let queued = await queuedCount()
        guard queued >= 0, let unreported = try? await store.unreportedHubChanges(limit: 1000) else { return -1 }
        return queued + unreported.count + (pullDue ? 1 : 0)
    }

    /// Entries waiting in the store's hub outboxes (-1: the store cannot say).
    public nonisolated func queuedCount() async -> Int {
        do {
            return try await store.outboxCount(channel: Self.storeChannel)
                + store.alertDeliveryCount(channel: Self.storeChannel)
        } catch {
            return -1
        }
    }

    public func refusedCredential() async -> String? { refusal }

    /// The display names of the patients `messages` are for, as this bridge's store knows them (a patient it
    /// cannot name goes up by id alone: the hub then shows the id).
    func names(of messages: [SyncMessage]) async -> [String: String] {
        let wanted = Set(messages.map(\.patient))
        guard !wanted.isEmpty, let patients = try? await store.patients() else { return [:] }
        return Dictionary(
            patients.filter { wanted.contains($0.id) && !$0.name.isEmpty }.map { ($0.id, $0.name) },
            uniquingKeysWith: { first, _ in first }
        )
    }

    /// Whether the next pass asks the hub for changes even with nothing to send.
    var pullDue: Bool {
        morePending || lastPull.map { now() - $0 >= pullInterval } ?? true
    }

    public func deliverDue() async -> OutboxPass {
        var delivered = 0
        var devicesChecked = false
        while !Task.isCancelled {
            let entries: [OutboxEntry]
            var alerts: [AlertDelivery] = []
            let results: [HandledHubChange]
            let cursor: Int64
            do {
                results = try await store.unreportedHubChanges(limit: SyncBatch.maximumCount)
                cursor = try await store.hubChangeCursor()
                entries = try await store.pendingOutbox(channel: Self.storeChannel, limit: batchSize)
                if entries.count < batchSize {
                    alerts = try await store.pendingAlertDeliveries(
                        channel: Self.storeChannel,
                        limit: batchSize - entries.count,
                        now: .distantFuture
                    )
                }
            } catch {
                return OutboxPass(delivered: delivered, failure: "the outbox cannot be read: \(error.message)")
            }
            if entries.isEmpty && alerts.isEmpty && results.isEmpty && !pullDue { break }
            let queued = entries.compactMap(message) + alerts.compactMap(message)
            var devices: [SyncMessage] = []
            if !devicesChecked, !queued.isEmpty || !results.isEmpty || pullDue {
                devicesChecked = true
                devices = Array(await changedDeviceFacts().prefix(SyncBatch.maximumCount - queued.count))
            }
            let messages = queued + devices
            var changes: [HubChange] = []
            if !messages.isEmpty || !results.isEmpty || pullDue {
                do {
                    let waiting = await queuedCount()
                    let backlog = waiting < 0 ? nil : max(waiting - entries.count - alerts.count, 0)
                    let receipt = try await client.push(
                        SyncBatch(
                            messages: messages,
                            pending: backlog,
                            changesAfter: cursor,
                            results: results,
                            patientNames: await names(of: messages)
                        )
                    )
                    lastPull = now()
                    refusal = nil
                    morePending = receipt.more
                    changes = receipt.changes
                    logger.debug(
                        "batch confirmed",
                        metadata: [
                            "hub.received": "\(receipt.received)", "hub.lastSequence": "\(receipt.lastSequence ?? -1)",
                            "hub.changes": "\(changes.count)",
                        ]
                    )
                } catch {
                    failures += 1
                    // Only an answer changes what is known about the credential (a cancelled or failed connection
                    // does not; a handshake that refused the client certificate does).
                    if error.status != nil || error.credentialRefused {
                        refusal = error.credentialRefused ? error.description : nil
                    }
                    return OutboxPass(delivered: delivered, failure: error.description, retryAfter: retryDelay())
                }
            }
            failures = 0
            sent += queued.count
            skipped += entries.count + alerts.count - queued.count
            for device in devices { confirmedFacts[Self.factsKey(device)] = device.body }
            delivered += entries.count + alerts.count
            do {
                try await store.removeOutboxEntries(entries.map(\.sequence), channel: Self.storeChannel)
                for alert in alerts { try await store.completeAlertDelivery(sequence: alert.sequence) }
                try await store.markHubChangesReported(results.map(\.sequence))
            } catch {
                // Sent again on the next pass; the hub keeps each id once.
                return OutboxPass(delivered: delivered, failure: "cannot remove confirmed entries: \(error.message)")
            }
            // In the hub's order; a change the store cannot take now stops the pass and is asked for again.
            for change in changes where change.sequence > cursor {
                guard let handled = await apply(change) else {
                    morePending = true
                    failures += 1
                    return OutboxPass(
                        delivered: delivered,
                        failure: "cannot apply change \(change.sequence) from the hub yet",
                        retryAfter: retryDelay()
                    )
                }
                do {
                    try await store.recordHubChange(handled)
                } catch {
                    morePending = true
                    return OutboxPass(delivered: delivered, failure: "cannot record a change: \(error.message)")
                }
                if handled.refusal == nil { applied += 1 } else { refused += 1 }
            }
        }
        return OutboxPass(delivered: delivered)
    }

    /// The message an entry stands for, or nil when it is not sent (see the type's notes).
    func message(_ entry: OutboxEntry) -> SyncMessage? {
        if let outcome = entry.outcome { return message(outcome, sequence: entry.sequence) }
        if let version = entry.taskVersion { return .taskVersion(version, sequence: entry.sequence, zone: zone) }
        guard let stored = entry.sample, let patient = stored.patientID, !stored.isUnassigned else { return nil }
        if let deleted = stored.deletedDate {
            // Queued at its deletion, so it went up before (an entry still waiting keeps its place and is dropped
            // here: the hub never had the sample).
            guard entry.enqueuedAt >= deleted else { return nil }
            return SyncMessage(
                kind: .retraction,
                id: stored.id.uuidString.lowercased(),
                sequence: entry.sequence,
                patient: patient,
                body: .object([
                    "deletedAt": .string(Timestamp.format(deleted, in: zone)), "sample": stored.sample.json(in: zone),
                ])
            )
        }
        if stored.sample.isQuarantined {
            // Held apart at the hub for the care team to decide on; a release queues it again as a sample.
            return SyncMessage(
                kind: .quarantined,
                id: stored.id.uuidString.lowercased(),
                sequence: entry.sequence,
                patient: patient,
                body: stored.sample.json(in: zone)
            )
        }
        return .sample(stored.sample, id: stored.id, sequence: entry.sequence, patient: patient, zone: zone)
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
    func message(_ delivery: AlertDelivery) -> SyncMessage? {
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
