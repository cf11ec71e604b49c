import BridgeFoundation
public import Logging
public import MQTTClient
import NIOCore
public import ServiceLifecycle

/// The one MQTT connection of a process, shared by every channel that publishes to the broker (sample states,
/// alert sensors): one client id, and the publisher's availability topic owned by the connection itself, announced
/// `online` (retained, with the publisher's connectivity sensor) on every connect and turned `offline` by its last
/// will when the process dies, or by ``stop()`` when it ends cleanly. What Home Assistant shows as a publisher's
/// availability is the state of the connection every message goes through. A one-off command's connection has no
/// availability topic and announces nothing of the kind.
///
/// Retained announcements (Home Assistant discovery configs) go through ``announce(_:)``: published once, and
/// again after every reconnect, as a broker without persistence forgets retained messages when it restarts.
///
/// As a ``Service`` the connection runs until graceful shutdown and then stops; placed before the channels in a
/// ``ServiceGroup`` it is shut down after them (the group shuts down in reverse order), so their drains still have
/// it.
public actor BrokerConnection: Service {
    public nonisolated let configuration: Configuration
    let clock: any Clock<Duration>
    let logger: Logger

    var session: MQTTSession?
    var connectTask: Task<Void, Never>?
    var eventTask: Task<Void, Never>?
    var stopped = false
    /// Callers of ``connectedSession()`` waiting for the first connection, by ticket.
    var waiters: [Int: CheckedContinuation<MQTTSession?, Never>] = [:]
    var cancelledWaiters: Set<Int> = []
    var nextTicket = 0
    /// Config topic → message, republished after every reconnect.
    var announced: [String: HomeAssistantDiscovery.Message] = [:]

    /// Whether the broker has accepted the connection at least once.
    public private(set) var everConnected = false
    /// Why the last connection attempt failed (TLS, refused, unreachable), without credentials; nil once connected.
    public private(set) var lastConnectionError: String?

    /// - Parameters:
    ///   - configuration: the broker, client id, availability topic and back-off.
    ///   - clock: drives the reconnect back-off (and the session's keep-alive and timeouts).
    ///   - logger: connection changes (info), outages (warning).
    public init(configuration: Configuration, clock: any Clock<Duration> = ContinuousClock(), logger: Logger) {
        self.configuration = configuration
        self.clock = clock
        var logger = logger
        logger[metadataKey: "mqtt.broker"] = "\(configuration.session.host):\(configuration.session.port)"
        self.logger = logger
    }

    // MARK: - Lifecycle

    /// Starts connecting in the background (retrying while the broker is unreachable); does nothing when started.
    public func start() {
        guard connectTask == nil, !stopped else { return }
        connectTask = Task { await self.connect() }
    }

    /// Runs until graceful shutdown (or cancellation), then stops: `offline` is announced and the connection closed.
    public func run() async throws {
        start()
        try? await gracefulShutdown()
        await stop()
    }

    /// Stops: announces `offline` (retained) when connected and the connection has an availability topic, and
    /// disconnects cleanly (the broker drops the will); every publish still waiting fails, and what it carried stays
    /// in its outbox.
    public func stop() async {
        stopped = true
        connectTask?.cancel()
        await connectTask?.value
        connectTask = nil
        eventTask?.cancel()
        eventTask = nil
        for waiter in waiters.values { waiter.resume(returning: nil) }
        waiters = [:]
        guard let session else { return }
        self.session = nil
        if let topic = configuration.availabilityTopic, await session.isConnected {
            let clock = clock
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
                group.addTask { try? await clock.sleep(for: .seconds(2)) }
                await group.next()
                group.cancelAll()
            }
        }
        await session.disconnect()
    }

    // MARK: - Publishing

    /// The session once the broker has accepted it (waiting for the first connection); nil when the connection
    /// stopped or the caller was cancelled first.
    public func connectedSession() async -> MQTTSession? {
        start()
        if let session { return session }
        if stopped { return nil }
        nextTicket += 1
        let ticket = nextTicket
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if cancelledWaiters.remove(ticket) != nil || stopped {
                    continuation.resume(returning: nil)
                } else {
                    waiters[ticket] = continuation
                }
            }
        } onCancel: {
            Task { await self.cancelWaiter(ticket) }
        }
    }

    /// The session when it has connected, without waiting.
    public var currentSession: MQTTSession? { session }

    /// Publishes `message` (QoS 1) on the shared session, waiting for the first connection.
    /// - Throws: ``MQTTClientError``: `.sessionClosed` when the connection stopped first, and what the session throws.
    public func publish(_ message: HomeAssistantDiscovery.Message) async throws(MQTTClientError) {
        try await publish(topic: message.topic, payload: message.payload.serialized(), retain: message.retain)
    }

    /// Publishes `payload` to `topic` (QoS 1) on the shared session, waiting for the first connection.
    /// - Throws: ``MQTTClientError``: `.sessionClosed` when the connection stopped first, and what the session throws.
    public func publish(topic: String, payload: String, retain: Bool) async throws(MQTTClientError) {
        guard let session = await connectedSession() else {
            throw MQTTClientError(.sessionClosed, "the broker connection was stopped")
        }
        try await session.publish(topic: topic, payload: payload, qos: .atLeastOnce, retain: retain)
    }

    /// Publishes a retained announcement (a discovery config) unless this connection published it already; it is
    /// published again after every reconnect.
    /// - Returns: whether it was published now.
    @discardableResult
    public func announce(_ message: HomeAssistantDiscovery.Message) async throws(MQTTClientError) -> Bool {
        guard announced[message.topic] != message else { return false }
        try await publish(message)
        announced[message.topic] = message
        return true
    }

    // MARK: - Connecting

    func cancelWaiter(_ ticket: Int) {
        if let waiter = waiters.removeValue(forKey: ticket) {
            waiter.resume(returning: nil)
        } else {
            cancelledWaiters.insert(ticket)
        }
    }

    /// Connects, retrying with the configured back-off until the broker accepts (or the task is cancelled); then
    /// announces `online`, hands the session to the waiting channels and watches for reconnects.
    func connect() async {
        var attempt = 0
        while !Task.isCancelled {
            let session = MQTTSession(configuration: configuration.session, clock: clock, logger: logger)
            do {
                try await session.connect()
                self.session = session
                everConnected = true
                lastConnectionError = nil
                logger.info("connected to the MQTT broker")
                eventTask = Task { await self.watch(session) }
                await announceOnline(on: session, again: false)
                for waiter in waiters.values { waiter.resume(returning: session) }
                waiters = [:]
                return
            } catch {
                await session.disconnect()
                lastConnectionError = error.message
                let delay = configuration.session.reconnectBackoff.delay(attempt: attempt)
                if attempt == 0 || attempt % 10 == 0 {
                    logger.warning(
                        "MQTT broker unreachable; messages stay queued in their outbox",
                        metadata: ["error": "\(error.message)", "retry.in": "\(delay)"]
                    )
                }
                attempt += 1
                try? await clock.sleep(for: delay)
            }
        }
    }

    func watch(_ session: MQTTSession) async {
        for await event in session.events {
            switch event {
            case .connected(_, reconnect: true):
                logger.info("reconnected to the MQTT broker")
                Task { await self.announceOnline(on: session, again: true) }
            case .connectionLost(let reason):
                logger.warning("lost the MQTT broker; messages stay queued", metadata: ["reason": "\(reason)"])
            case .connected, .reconnectFailed, .closed:
                break
            }
        }
    }

    /// Publishes `online` (retained) and the publisher's connectivity sensor when the connection has an availability
    /// topic and, after a reconnect, every announcement again.
    func announceOnline(on session: MQTTSession, again: Bool) async {
        do {
            if let topic = configuration.availabilityTopic {
                try await session.publish(
                    topic: topic,
                    payload: HomeAssistantDiscovery.availablePayload,
                    qos: .atLeastOnce,
                    retain: true
                )
            }
            if let config = configuration.publisherConfig {
                try await session.publish(
                    topic: config.topic,
                    payload: config.payload.serialized(),
                    qos: .atLeastOnce,
                    retain: config.retain
                )
            }
            guard again else { return }
            for message in announced.values.sorted(by: { $0.topic < $1.topic }) {
                try await session.publish(
                    topic: message.topic,
                    payload: message.payload.serialized(),
                    qos: .atLeastOnce,
                    retain: message.retain
                )
            }
        } catch {
            logger.debug("announcement not sent", metadata: ["error": "\(error)"])
        }
    }
}
