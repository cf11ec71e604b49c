import BridgeCore
import BridgeFoundation
import CareBridgeExport
import CarePlan
public import CareStore
public import Foundation
public import Logging
import MQTTClient
public import ServiceLifecycle

/// Delivers the store's MQTT outbox to a broker: every newly stored sample as a JSON state message (QoS 1), a
/// retained Home Assistant discovery config once per device and quantity type, and the bridge's availability.
///
/// The outbox is the store's (see ``CareStore/enableOutbox(channel:at:)``): samples are queued in the same
/// transaction that stores them, so a sample is never stored without being queued. The publisher reads the
/// oldest entries, publishes them one after another in order, and removes each only after the broker's PUBACK.
/// While the broker is unreachable the publish waits (the session reconnects with back-off) and new samples stay
/// queued; a crash or kill loses nothing, the next publisher on the same store sends what is left. Delivery is
/// at least once: a message whose PUBACK was lost is sent again, and every state message carries the sample id so
/// consumers can drop repeats.
///
/// The publisher observes the store's changes (``CareStore/changes()``): a sample stored or deleted through the
/// same store wakes the delivery loop at once. Samples stored by other processes (`carebridge ingest` beside the
/// daemon) are found by re-reading the outbox every ``Configuration/pollInterval``, as SQLite tells no other
/// process.
///
/// As a ``Service`` (in the bridge's ``ServiceGroup``) it delivers until graceful shutdown, then waits up to
/// ``Configuration/drainTimeout`` for the outbox to drain and stops; ``pendingAtStop`` says what was left.
public actor MQTTPublisher: Service {
    public nonisolated let configuration: Configuration
    let store: CareStore
    let zone: TimeZone
    let logger: Logger

    var session: MQTTSession?
    var deliveryTask: Task<Void, Never>?
    var eventTask: Task<Void, Never>?
    /// Follows the store's changes and wakes the delivery loop.
    var changeTask: Task<Void, Never>?
    var wakeRequested = false
    /// The delivery loop, while it sleeps in ``idle()``.
    var sleeper: CheckedContinuation<Void, Never>?
    /// Called about every 100 ms with the pending count while the service drains at shutdown.
    let drainProgress: (@Sendable (Int) -> Void)?
    /// Entries still in the outbox when the service stopped (nil until it has).
    public private(set) var pendingAtStop: Int?
    /// Config topic → message, published once per device and type and again after every reconnect.
    var announced: [String: HomeAssistantDiscovery.Message] = [:]
    public private(set) var statistics = Statistics()

    /// - Parameters:
    ///   - store: the store whose outbox is delivered (the `mqtt` channel).
    ///   - configuration: broker, topics, batch size.
    ///   - zone: the zone the state messages' times are written in.
    ///   - logger: connection changes (info), outages (warning), deliveries (debug).
    ///   - drainProgress: called about every 100 ms with the pending count while the service drains at shutdown.
    public init(
        store: CareStore,
        configuration: Configuration,
        zone: TimeZone,
        logger: Logger,
        drainProgress: (@Sendable (Int) -> Void)? = nil
    ) {
        self.store = store
        self.drainProgress = drainProgress
        self.configuration = configuration
        self.zone = zone
        var logger = logger
        logger[metadataKey: "mqtt.broker"] = "\(configuration.session.host):\(configuration.session.port)"
        self.logger = logger
    }

    // MARK: - Lifecycle

    /// Turns queueing on for the store and starts delivering in the background: connects (retrying while the
    /// broker is unreachable), announces `online`, and publishes what the outbox holds.
    /// - Throws: ``CareStoreError`` when queueing cannot be enabled.
    public func start() async throws(CareStoreError) {
        guard deliveryTask == nil else { return }
        try await store.enableOutbox(channel: CareStore.mqttOutboxChannel)
        let changes = store.changes()
        changeTask = Task { [weak self] in
            for await batch in changes where batch.contains(where: Self.queuesForPublishing) {
                await self?.wake()
            }
        }
        deliveryTask = Task { await self.deliver() }
    }

    /// Whether a change queued something in the outbox (a new sample; a deletion queues a retraction).
    static func queuesForPublishing(_ change: StoreChange) -> Bool {
        switch change {
        case .sampleAdded, .sampleDeleted: true
        case .eventUpdated, .taskListChanged: false
        }
    }

    /// Delivers until graceful shutdown (or cancellation), then drains the outbox for up to
    /// ``Configuration/drainTimeout`` and stops; what is left waits in the outbox for the next publisher.
    /// - Throws: ``CareStoreError`` when queueing cannot be enabled.
    public func run() async throws {
        try await start()
        try? await gracefulShutdown()
        pendingAtStop = await drain(timeout: configuration.drainTimeout, progress: drainProgress)
        await stop()
    }

    /// Waits until the outbox is empty or `timeout` has passed.
    ///
    /// - Parameters:
    ///   - timeout: the longest wait.
    ///   - progress: called about every 100 ms with the number of pending entries.
    /// - Returns: how many entries are still pending (0 when drained).
    public func drain(timeout: Duration, progress: (@Sendable (Int) -> Void)? = nil) async -> Int {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            let pending = (try? await store.outboxCount(channel: CareStore.mqttOutboxChannel)) ?? -1
            progress?(pending)
            if pending == 0 || clock.now >= deadline { return pending }
            wake()
            try? await Task.sleep(for: .milliseconds(100))
            if Task.isCancelled { return pending }
        }
    }

    /// Stops delivering: what is not acknowledged stays in the outbox. When connected, announces `offline`
    /// (retained) and disconnects cleanly.
    public func stop() async {
        deliveryTask?.cancel()
        await deliveryTask?.value
        deliveryTask = nil
        eventTask?.cancel()
        eventTask = nil
        changeTask?.cancel()
        changeTask = nil
        guard let session else { return }
        if await session.isConnected {
            let topic = configuration.discovery.availabilityTopic
            // QoS 1 so that it is stored like the will would be; bounded, the broker may be gone meanwhile.
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    try? await session.publish(
                        topic: topic,
                        payload: HomeAssistantDiscovery.notAvailablePayload,
                        qos: .atLeastOnce,
                        retain: true
                    )
                }
                group.addTask { try? await Task.sleep(for: .seconds(2)) }
                await group.next()
                group.cancelAll()
            }
        }
        await session.disconnect()
        self.session = nil
    }

    // MARK: - Delivery

    func deliver() async {
        guard let session = await connect() else { return }
        let discovery = configuration.discovery
        while !Task.isCancelled {
            let entries: [OutboxEntry]
            do {
                entries = try await store.pendingOutbox(
                    channel: CareStore.mqttOutboxChannel,
                    limit: configuration.batchSize
                )
            } catch {
                logger.error("cannot read the outbox", metadata: ["error": "\(error)"])
                await idle()
                continue
            }
            if entries.isEmpty {
                await idle()
                continue
            }
            // Several patients: topics and Home Assistant devices per patient, and unassigned readings wait
            // (assigning one queues it again). One patient: topics as without patients.
            let patients: [String: PatientTag]?
            do {
                let list = try await store.patients()
                patients =
                    list.count > 1
                    ? Dictionary(list.map { ($0.id, PatientTag(id: $0.id, name: $0.name)) }) { first, _ in first }
                    : nil
            } catch {
                logger.error("cannot read the patients", metadata: ["error": "\(error)"])
                await idle()
                continue
            }
            var done: [Int64] = []
            var failed = false
            for entry in entries {
                // A sample deleted after it was published was queued again at its deletion: its retraction is
                // published. Deleted before publishing, or quarantined: nothing is published (a released sample
                // is queued again).
                guard let stored = entry.sample, !stored.sample.isQuarantined else {
                    statistics.skipped += 1
                    done.append(entry.sequence)
                    continue
                }
                var patient: PatientTag?
                if let patients {
                    guard let id = stored.patientID, !stored.isUnassigned else {
                        // Nobody's yet: `samples assign` files it and queues it again for its patient's topic.
                        statistics.unassigned += 1
                        done.append(entry.sequence)
                        continue
                    }
                    patient = patients[id] ?? PatientTag(id: id, name: id)
                }
                if let deleted = stored.deletedDate {
                    guard entry.enqueuedAt >= deleted else {
                        statistics.skipped += 1
                        done.append(entry.sequence)
                        continue
                    }
                    do {
                        try await publish(
                            discovery.retraction(for: stored.sample, deletedAt: deleted, in: zone, patient: patient),
                            on: session
                        )
                    } catch {
                        if !Task.isCancelled {
                            logger.warning("publish failed; the entry stays queued", metadata: ["error": "\(error)"])
                        }
                        failed = true
                        break
                    }
                    statistics.retracted += 1
                    done.append(entry.sequence)
                    continue
                }
                let sample = stored.sample
                do {
                    let config = discovery.config(device: sample.source.device, type: sample.type, patient: patient)
                    if announced[config.topic] == nil {
                        try await publish(config, on: session)
                        announced[config.topic] = config
                        statistics.configs += 1
                    }
                    try await publish(discovery.state(for: sample, in: zone, patient: patient), on: session)
                } catch {
                    if !Task.isCancelled {
                        logger.warning("publish failed; the entry stays queued", metadata: ["error": "\(error)"])
                    }
                    failed = true
                    break
                }
                statistics.delivered += 1
                done.append(entry.sequence)
                if done.count >= 64 { done = await remove(done) }
            }
            done = await remove(done)
            // The store refused the delete, or the session refused the publish: try again after a pause.
            if !done.isEmpty || failed { await idle() }
        }
    }

    /// Removes acknowledged entries; returns those that could not be removed.
    func remove(_ sequences: [Int64]) async -> [Int64] {
        do {
            try await store.removeOutboxEntries(sequences, channel: CareStore.mqttOutboxChannel)
            logger.debug("delivered outbox entries", metadata: ["outbox.removed": "\(sequences.count)"])
            return []
        } catch {
            logger.error("cannot remove delivered outbox entries", metadata: ["error": "\(error)"])
            return sequences
        }
    }

    func publish(_ message: HomeAssistantDiscovery.Message, on session: MQTTSession) async throws(MQTTClientError) {
        try await session.publish(
            topic: message.topic,
            payload: message.payload.serialized(),
            qos: .atLeastOnce,
            retain: message.retain
        )
    }

    /// Sleeps until a store change wakes the loop (``wake()``), the poll interval has passed (writes by other
    /// processes), or the task is cancelled.
    func idle() async {
        guard !wakeRequested, !Task.isCancelled else {
            wakeRequested = false
            return
        }
        let interval = configuration.pollInterval
        let timer = Task { [weak self] in
            try? await Task.sleep(for: interval)
            await self?.wake()
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { sleeper = $0 }
        } onCancel: {
            Task { await self.wake() }
        }
        timer.cancel()
        wakeRequested = false
    }

    /// Wakes the delivery loop, or makes its next ``idle()`` return at once.
    func wake() {
        wakeRequested = true
        sleeper?.resume()
        sleeper = nil
    }

    /// Connects, retrying with the configured back-off until the broker accepts (or the task is cancelled);
    /// then announces `online` and watches for reconnects.
    func connect() async -> MQTTSession? {
        var attempt = 0
        while !Task.isCancelled {
            let session = MQTTSession(configuration: configuration.session, logger: logger)
            do {
                try await session.connect()
                self.session = session
                statistics.everConnected = true
                statistics.lastConnectionError = nil
                logger.info("connected to the MQTT broker")
                eventTask = Task { await self.watch(session) }
                await announceOnline(on: session, again: false)
                return session
            } catch {
                await session.disconnect()
                statistics.lastConnectionError = error.message
                let delay = configuration.session.reconnectBackoff.delay(attempt: attempt)
                if attempt == 0 || attempt % 10 == 0 {
                    logger.warning(
                        "MQTT broker unreachable; samples stay queued in the outbox",
                        metadata: ["error": "\(error)", "retry.in": "\(delay)"]
                    )
                }
                attempt += 1
                try? await Task.sleep(for: delay)
            }
        }
        return nil
    }

    func watch(_ session: MQTTSession) async {
        for await event in session.events {
            switch event {
            case .connected(_, reconnect: true):
                logger.info("reconnected to the MQTT broker")
                Task { await self.announceOnline(on: session, again: true) }
            case .connectionLost(let reason):
                logger.warning("lost the MQTT broker; samples stay queued", metadata: ["reason": "\(reason)"])
            case .connected, .reconnectFailed, .closed:
                break
            }
        }
    }

    /// Publishes `online` (retained) and, after a reconnect, every config again (a broker without persistence
    /// forgets retained messages when it restarts).
    func announceOnline(on session: MQTTSession, again: Bool) async {
        do {
            try await session.publish(
                topic: configuration.discovery.availabilityTopic,
                payload: HomeAssistantDiscovery.availablePayload,
                qos: .atLeastOnce,
                retain: true
            )
            guard again else { return }
            for message in announced.values.sorted(by: { $0.topic < $1.topic }) {
                try await publish(message, on: session)
                statistics.configs += 1
            }
        } catch {
            logger.debug("announcement not sent", metadata: ["error": "\(error)"])
        }
    }
}
