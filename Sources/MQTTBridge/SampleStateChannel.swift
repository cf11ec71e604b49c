import BridgeCore
import CarePlan
public import CareStore
public import Foundation
public import Logging
import MQTTClient

/// The store's MQTT outbox as an ``OutboxChannel``: every newly stored sample as a JSON state message (QoS 1) and
/// a retained Home Assistant discovery config once per device and quantity type, on the process's shared
/// ``BrokerConnection`` (which owns the availability topic and the last will).
///
/// The outbox is the store's (see ``CareStore/enableOutbox(channel:at:)``): samples are queued in the same
/// transaction that stores them, so a sample is never stored without being queued. A pass reads the oldest
/// entries, publishes them one after another in order, and removes each only after the broker's PUBACK. While the
/// broker is unreachable the publish waits (the session reconnects with back-off) and new samples stay queued; a
/// crash or kill loses nothing, the next run on the same store sends what is left. Delivery is at least once: a
/// message whose PUBACK was lost is sent again, and every state message carries the sample id so consumers can
/// drop repeats.
public actor SampleStateChannel: QueueingOutboxChannel {
    public nonisolated let name = "mqtt samples"
    public nonisolated let discovery: HomeAssistantDiscovery
    public nonisolated let connection: BrokerConnection
    /// Entries read from the store per round.
    public nonisolated let batchSize: Int
    let store: CareStore
    let zone: TimeZone
    let logger: Logger
    public private(set) var statistics = Statistics()

    /// - Parameters:
    ///   - store: the store whose outbox is delivered (the `mqtt` channel).
    ///   - connection: the process's broker connection.
    ///   - discovery: topics and discovery configs.
    ///   - zone: the zone the state messages' times are written in.
    ///   - batchSize: entries read from the store per round.
    ///   - logger: deliveries (debug), store failures (error).
    public init(
        store: CareStore,
        connection: BrokerConnection,
        discovery: HomeAssistantDiscovery = HomeAssistantDiscovery(),
        zone: TimeZone,
        batchSize: Int = 256,
        logger: Logger
    ) {
        self.store = store
        self.connection = connection
        self.discovery = discovery
        self.zone = zone
        self.batchSize = batchSize
        self.logger = logger
    }

    /// Turns queueing on for the store, so that every sample stored from now on is queued for the broker.
    /// - Throws: ``CareStoreError`` when queueing cannot be enabled.
    public nonisolated func enable() async throws(CareStoreError) {
        try await store.enableOutbox(channel: CareStore.mqttOutboxChannel)
    }

    // MARK: - OutboxChannel

    /// A new sample is queued; a deletion queues a retraction.
    public nonisolated func isQueued(by change: StoreChange) -> Bool {
        switch change {
        case .sampleAdded, .sampleDeleted: true
        case .eventUpdated, .taskListChanged: false
        }
    }

    public nonisolated func pendingCount() async -> Int {
        (try? await store.outboxCount(channel: CareStore.mqttOutboxChannel)) ?? -1
    }

    public func deliverDue() async -> OutboxPass {
        var delivered = 0
        while !Task.isCancelled {
            let entries: [OutboxEntry]
            let patients: [String: PatientTag]?
            do {
                entries = try await store.pendingOutbox(channel: CareStore.mqttOutboxChannel, limit: batchSize)
                if entries.isEmpty { return OutboxPass(delivered: delivered) }
                patients = try await patientTags()
            } catch {
                return OutboxPass(delivered: delivered, failure: "the outbox cannot be read: \(error.message)")
            }
            var done: [Int64] = []
            for entry in entries {
                do {
                    try await publish(entry, patients: patients)
                } catch {
                    _ = await remove(done)
                    return OutboxPass(delivered: delivered, failure: "publish failed: \(error.message)")
                }
                delivered += 1
                done.append(entry.sequence)
                if done.count >= 64 { done = await remove(done) }
            }
            // The store refused the delete: try again after the poll.
            guard await remove(done).isEmpty else {
                return OutboxPass(delivered: delivered, failure: "cannot remove delivered outbox entries")
            }
        }
        return OutboxPass(delivered: delivered)
    }

    // MARK: - Publishing

    /// Several patients: topics and Home Assistant devices per patient, and unassigned readings wait (assigning
    /// one queues it again). One patient: topics as without patients (nil).
    func patientTags() async throws(CareStoreError) -> [String: PatientTag]? {
        let list = try await store.patients()
        guard list.count > 1 else { return nil }
        return Dictionary(list.map { ($0.id, PatientTag(id: $0.id, name: $0.name)) }) { first, _ in first }
    }

    /// Publishes what one entry stands for (a state with its config, a retraction) or counts why it is dropped.
    func publish(_ entry: OutboxEntry, patients: [String: PatientTag]?) async throws(MQTTClientError) {
        // A sample deleted after it was published was queued again at its deletion: its retraction is published.
        // Deleted before publishing, or quarantined: nothing is published (a released sample is queued again).
        guard let stored = entry.sample, !stored.sample.isQuarantined else {
            statistics.skipped += 1
            return
        }
        var patient: PatientTag?
        if let patients {
            guard let id = stored.patientID, !stored.isUnassigned else {
                // Nobody's yet: `samples assign` files it and queues it again for its patient's topic.
                statistics.unassigned += 1
                return
            }
            patient = patients[id] ?? PatientTag(id: id, name: id)
        }
        if let deleted = stored.deletedDate {
            guard entry.enqueuedAt >= deleted else {
                statistics.skipped += 1
                return
            }
            try await connection.publish(
                discovery.retraction(for: stored.sample, deletedAt: deleted, in: zone, patient: patient)
            )
            statistics.retracted += 1
            return
        }
        let sample = stored.sample
        let config = discovery.config(device: sample.source.device, type: sample.type, patient: patient)
        if try await connection.announce(config) { statistics.configs += 1 }
        try await connection.publish(discovery.state(for: sample, in: zone, patient: patient))
        statistics.delivered += 1
    }

    /// Removes acknowledged entries; returns those that could not be removed.
    func remove(_ sequences: [Int64]) async -> [Int64] {
        guard !sequences.isEmpty else { return [] }
        do {
            try await store.removeOutboxEntries(sequences, channel: CareStore.mqttOutboxChannel)
            logger.debug("delivered outbox entries", metadata: ["outbox.removed": "\(sequences.count)"])
            return []
        } catch {
            logger.error("cannot remove delivered outbox entries", metadata: ["error": "\(error)"])
            return sequences
        }
    }
}
