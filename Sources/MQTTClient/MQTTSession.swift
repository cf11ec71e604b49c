public import Logging
public import NIOCore
import NIOPosix
import Synchronization

/// A client session with one MQTT 3.1.1 broker: connects, keeps the connection alive, reconnects with back-off
/// when the broker goes away, and delivers QoS 1 publishes at least once.
///
/// ``publish(topic:payload:qos:retain:)`` with QoS 1 returns only when the broker's PUBACK for that packet
/// identifier has arrived. Publishes made while the connection is down are queued in order and sent when it
/// comes back; ones that were sent but not acknowledged are sent again with DUP set. The keep-alive PINGREQ and
/// the reconnect back-off run on the injected clock, so tests can drive time.
///
/// The session keeps no global state; every instance owns its connection, queue and tasks.
public actor MQTTSession {
    public nonisolated let configuration: Configuration
    /// Connection changes, in order. Finishes after ``disconnect()``.
    public nonisolated let events: AsyncStream<Event>
    /// PUBLISH packets the broker delivers for the session's subscriptions. Finishes after ``disconnect()``.
    public nonisolated let messages: AsyncStream<PublishPacket>

    private let eventContinuation: AsyncStream<Event>.Continuation
    private let messageContinuation: AsyncStream<PublishPacket>.Continuation
    private let group: any EventLoopGroup
    private let clock: any Clock<Duration>
    private let logger: Logger

    private enum State {
        case idle
        case connecting
        case connected(any Channel)
        case reconnecting
        case closed
    }

    private struct PendingPublish {
        var packet: PublishPacket
        var sent: Bool
        var continuation: CheckedContinuation<Void, any Error>
        var timeout: Task<Void, Never>?
    }

    private var state: State = .idle
    private var supervisor: Task<Void, Never>?
    private var keepAliveTask: Task<Void, Never>?
    private var firstConnectWaiter: CheckedContinuation<Void, any Error>?
    private var pingOutstanding = false
    /// The packet identifier used last; the next one follows it (wrapping 65535 → 1). Internal for tests.
    var lastPacketID: UInt16 = 0
    /// Every filter subscribed to, renewed after a reconnect that did not resume the broker's session.
    private var subscriptions: [SubscribePacket.Subscription] = []
    private var resubscribeIDs: Set<UInt16> = []
    private var pending: [PendingPublish] = []
    private var subscribeWaiters: [UInt16: CheckedContinuation<[SubAckPacket.ReturnCode], any Error>] = [:]

    /// Creates a session; nothing is opened until ``connect()``.
    ///
    /// - Parameters:
    ///   - configuration: the broker, identity, will, credentials, timeouts and back-off.
    ///   - eventLoopGroup: where the socket runs; NIO's shared singleton group by default.
    ///   - clock: drives the keep-alive, the back-off and the timeouts.
    ///   - logger: receives connection changes (info), retries (warning) and packets (trace).
    public init(
        configuration: Configuration,
        eventLoopGroup: (any EventLoopGroup)? = nil,
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger
    ) {
        self.configuration = configuration
        self.group = eventLoopGroup ?? MultiThreadedEventLoopGroup.singleton
        self.clock = clock
        var logger = logger
        logger[metadataKey: "mqtt.broker"] = "\(configuration.host):\(configuration.port)"
        logger[metadataKey: "mqtt.client_id"] = "\(configuration.clientID)"
        self.logger = logger
        (events, eventContinuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(256))
        (messages, messageContinuation) = AsyncStream.makeStream(
            of: PublishPacket.self,
            bufferingPolicy: .bufferingNewest(10_000)
        )
    }

    /// Whether CONNACK has been accepted on the current connection.
    public var isConnected: Bool {
        if case .connected = state { return true }
        return false
    }

    /// Sets the packet identifier counter (for tests of the 65535 → 1 wrap).
    func setLastPacketID(_ value: UInt16) { lastPacketID = value }

    /// Whether a PINGREQ is waiting for its PINGRESP (for tests).
    var awaitingPingResponse: Bool { pingOutstanding }

    /// QoS 1 publishes not yet acknowledged: in flight, or queued while the connection is down.
    public var pendingPublishCount: Int { pending.count }

    // MARK: - Connecting

    /// Opens the connection and waits for the broker to accept it. From then on the session reconnects by itself
    /// whenever the connection drops, until ``disconnect()``.
    ///
    /// - Throws: ``MQTTClientError`` with `.connectionFailed`, `.connectTimedOut` or `.connectionRefused` when the
    ///   first attempt fails (no retry is scheduled then), `.sessionClosed` after ``disconnect()``.
    public func connect() async throws(MQTTClientError) {
        switch state {
        case .idle: break
        case .connected, .reconnecting: return
        case .connecting: throw MQTTClientError(.connectionFailed, "connect() is already in progress")
        case .closed: throw MQTTClientError(.sessionClosed, "the session was closed; create a new one")
        }
        state = .connecting
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                firstConnectWaiter = continuation
                supervisor = Task { await self.supervise() }
            }
        } catch let error as MQTTClientError {
            throw error
        } catch {
            throw MQTTClientError(.connectionFailed, "connect failed", cause: error)
        }
    }

    /// Sends DISCONNECT (so the broker drops the will), closes the connection, and fails every waiting
    /// publish and subscribe with `.sessionClosed`. The session cannot be reused.
    public func disconnect() async {
        let previous = state
        state = .closed
        supervisor?.cancel()
        keepAliveTask?.cancel()
        if case .connected(let channel) = previous {
            try? await channel.writeAndFlush(MQTTPacket.disconnect)
            try? await channel.close()
        }
        let closed = MQTTClientError(.sessionClosed, "disconnect() was called")
        firstConnectWaiter?.resume(throwing: closed)
        firstConnectWaiter = nil
        for entry in pending {
            entry.timeout?.cancel()
            entry.continuation.resume(throwing: closed)
        }
        pending.removeAll()
        failSubscribeWaiters(closed)
        logger.info("MQTT session closed")
        eventContinuation.yield(.closed)
        eventContinuation.finish()
        messageContinuation.finish()
    }

    /// Closes the socket without DISCONNECT, as a crash or a network failure would: the broker publishes the
    /// will and the session reconnects after its back-off.
    func abortConnection() {
        if case .connected(let channel) = state { channel.close(promise: nil) }
    }

    // MARK: - Publishing

    /// Publishes one message.
    ///
    /// With QoS 0 the message is written to the live connection and the call returns. With QoS 1 it is queued,
    /// sent (now, or when the connection returns), and the call returns when its PUBACK arrives.
    ///
    /// - Throws: ``MQTTClientError``: `.invalidTopic`, `.unsupportedQoS` (QoS 2), `.notConnected` (QoS 0 without a
    ///   connection, or before ``connect()``), `.queueFull`, `.publishTimedOut`, `.sessionClosed`, `.cancelled`.
    public func publish(
        topic: String,
        payload: ByteBuffer,
        qos: QoS = .atLeastOnce,
        retain: Bool = false
    ) async throws(MQTTClientError) {
        guard PublishPacket.isValidTopicName(topic), topic.utf8.count <= Int(UInt16.max) else {
            throw MQTTClientError(.invalidTopic, "'\(topic)' is not a valid topic name")
        }
        guard qos != .exactlyOnce else { throw MQTTClientError(.unsupportedQoS, "QoS 2 is not supported; use QoS 1") }
        switch state {
        case .idle: throw MQTTClientError(.notConnected, "call connect() before publishing")
        case .closed: throw MQTTClientError(.sessionClosed, "the session was closed")
        case .connecting, .connected, .reconnecting: break
        }
        switch qos {
        case .exactlyOnce:
            break
        case .atMostOnce:
            guard case .connected(let channel) = state else {
                throw MQTTClientError(.notConnected, "QoS 0 message to '\(topic)' dropped: not connected")
            }
            channel.writeAndFlush(
                MQTTPacket.publish(PublishPacket(topic: topic, payload: payload, retain: retain)),
                promise: nil
            )
        case .atLeastOnce:
            guard pending.count < configuration.maximumPendingPublishes else {
                throw MQTTClientError(.queueFull, "\(pending.count) QoS 1 publishes are waiting for PUBACK")
            }
            let packetID = allocatePacketID()
            let packet = PublishPacket(
                topic: topic,
                payload: payload,
                qos: .atLeastOnce,
                retain: retain,
                packetID: packetID
            )
            do {
                try await withTaskCancellationHandler {
                    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                        enqueue(packet, continuation: continuation)
                    }
                } onCancel: {
                    Task { await self.cancelPublish(packetID) }
                }
            } catch let error as MQTTClientError {
                throw error
            } catch {
                throw MQTTClientError(.cancelled, "publish to '\(topic)' was cancelled", cause: error)
            }
        }
    }

    /// Publishes UTF-8 text; see ``publish(topic:payload:qos:retain:)``.
    public func publish(
        topic: String,
        payload: String,
        qos: QoS = .atLeastOnce,
        retain: Bool = false
    ) async throws(MQTTClientError) {
        try await publish(topic: topic, payload: ByteBuffer(string: payload), qos: qos, retain: retain)
    }

    private func enqueue(_ packet: PublishPacket, continuation: CheckedContinuation<Void, any Error>) {
        let packetID = packet.packetID!
        if Task.isCancelled {
            continuation.resume(throwing: MQTTClientError(.cancelled, "publish to '\(packet.topic)' was cancelled"))
            return
        }
        var entry = PendingPublish(packet: packet, sent: false, continuation: continuation)
        if case .connected(let channel) = state {
            channel.writeAndFlush(MQTTPacket.publish(packet), promise: nil)
            entry.sent = true
            logger.trace("PUBLISH sent", metadata: ["mqtt.packet_id": "\(packetID)", "mqtt.topic": "\(packet.topic)"])
        } else {
            logger.debug("PUBLISH queued until reconnect", metadata: ["mqtt.packet_id": "\(packetID)"])
        }
        if let timeout = configuration.publishTimeout {
            entry.timeout = Task { [clock] in
                do { try await clock.sleep(for: timeout) } catch { return }
                self.expirePublish(packetID)
            }
        }
        pending.append(entry)
    }

    private func allocatePacketID() -> UInt16 {
        repeat {
            lastPacketID = lastPacketID == UInt16.max ? 1 : lastPacketID + 1
        } while pending.contains(where: { $0.packet.packetID == lastPacketID }) || subscribeWaiters[lastPacketID] != nil
            || resubscribeIDs.contains(lastPacketID)
        return lastPacketID
    }

    private func removePending(_ packetID: UInt16) -> PendingPublish? {
        guard let index = pending.firstIndex(where: { $0.packet.packetID == packetID }) else { return nil }
        let entry = pending.remove(at: index)
        entry.timeout?.cancel()
        return entry
    }

    private func expirePublish(_ packetID: UInt16) {
        guard let entry = removePending(packetID) else { return }
        logger.warning("PUBACK timed out", metadata: ["mqtt.packet_id": "\(packetID)"])
        entry.continuation.resume(
            throwing: MQTTClientError(
                .publishTimedOut,
                "no PUBACK for packet \(packetID) on '\(entry.packet.topic)' within \(configuration.publishTimeout!)"
            )
        )
    }

    private func cancelPublish(_ packetID: UInt16) {
        guard let entry = removePending(packetID) else { return }
        entry.continuation.resume(throwing: MQTTClientError(.cancelled, "publish of packet \(packetID) was cancelled"))
    }

    // MARK: - Subscribing

    /// Subscribes on the live connection and returns the broker's SUBACK codes, one per subscription.
    ///
    /// Messages arrive on ``messages``. The session remembers its subscriptions and subscribes again after a
    /// reconnect whose CONNACK says the broker kept no session (always the case with clean session).
    ///
    /// - Throws: ``MQTTClientError``: `.notConnected`, `.unsupportedQoS`, `.connectionLost`, `.sessionClosed`.
    public func subscribe(
        _ subscriptions: [SubscribePacket.Subscription]
    ) async throws(MQTTClientError) -> [SubAckPacket.ReturnCode] {
        guard !subscriptions.isEmpty else { return [] }
        guard subscriptions.allSatisfy({ $0.qos != .exactlyOnce }) else {
            throw MQTTClientError(.unsupportedQoS, "subscriptions with QoS 2 are not supported")
        }
        guard case .connected(let channel) = state else {
            throw MQTTClientError(.notConnected, "subscribe needs a live connection")
        }
        for subscription in subscriptions {
            self.subscriptions.removeAll { $0.topicFilter == subscription.topicFilter }
            self.subscriptions.append(subscription)
        }
        let packetID = allocatePacketID()
        do {
            return try await withCheckedThrowingContinuation { continuation in
                subscribeWaiters[packetID] = continuation
                channel.writeAndFlush(
                    MQTTPacket.subscribe(SubscribePacket(packetID: packetID, subscriptions: subscriptions)),
                    promise: nil
                )
            }
        } catch let error as MQTTClientError {
            throw error
        } catch {
            throw MQTTClientError(.connectionLost, "subscribe failed", cause: error)
        }
    }

    private func failSubscribeWaiters(_ error: MQTTClientError) {
        let waiters = subscribeWaiters
        subscribeWaiters.removeAll()
        for waiter in waiters.values { waiter.resume(throwing: error) }
    }

    // MARK: - Connection supervision

    /// Runs for the life of the session: opens the connection, reads packets, and after a loss sleeps the
    /// back-off and tries again.
    private func supervise() async {
        var everConnected = false
        var attempt = 0
        while true {
            if case .closed = state { return }
            if everConnected {
                let delay = configuration.reconnectBackoff.delay(attempt: attempt)
                logger.debug(
                    "reconnecting after back-off",
                    metadata: ["mqtt.delay": "\(delay)", "mqtt.attempt": "\(attempt)"]
                )
                do { try await clock.sleep(for: delay) } catch { return }
                if case .closed = state { return }
            }
            do {
                try await runConnection(reconnect: everConnected)
                everConnected = true
                attempt = 0
            } catch {
                if !everConnected {
                    state = .idle
                    supervisor = nil
                    firstConnectWaiter?.resume(throwing: error)
                    firstConnectWaiter = nil
                    // Publishes queued while the first connect was in progress have nowhere to go.
                    let queued = pending
                    pending.removeAll()
                    for entry in queued {
                        entry.timeout?.cancel()
                        entry.continuation.resume(throwing: error)
                    }
                    return
                }
                attempt += 1
                if case .closed = state { return }
                logger.warning("reconnect failed", metadata: ["mqtt.attempt": "\(attempt)", "mqtt.error": "\(error)"])
                eventContinuation.yield(.reconnectFailed(attempt: attempt, reason: error.message))
            }
        }
    }

    /// Opens one connection and, once CONNACK accepts it, reads packets until it closes.
    ///
    /// - Throws: only when the connection never got as far as an accepted CONNACK.
    private func runConnection(reconnect: Bool) async throws(MQTTClientError) {
        let (packets, continuation) = AsyncThrowingStream.makeStream(of: MQTTPacket.self, throwing: (any Error).self)
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(.nanoseconds(Int64(configuration.connectTimeout.seconds * 1e9)))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([
                        ByteToMessageHandler(MQTTPacketDecoder()),
                        MessageToByteHandler(MQTTPacketEncoder()),
                        InboundPacketForwarder(continuation: continuation),
                    ])
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: configuration.host, port: configuration.port).get()
        } catch {
            continuation.finish()
            throw MQTTClientError(
                .connectionFailed,
                "cannot connect to \(configuration.host):\(configuration.port)",
                cause: error
            )
        }
        if case .closed = state {
            channel.close(promise: nil)
            throw MQTTClientError(.sessionClosed, "the session was closed while connecting")
        }

        // CONNECT, then wait for CONNACK; a timer on the injected clock closes the channel if it is late.
        let timedOut = Atomic<Bool>(false)
        let timer = Task { [clock, timeout = configuration.connectTimeout] in
            do { try await clock.sleep(for: timeout) } catch { return }
            timedOut.store(true, ordering: .relaxed)
            channel.close(promise: nil)
        }
        channel.writeAndFlush(MQTTPacket.connect(configuration.connectPacket), promise: nil)
        var iterator = packets.makeAsyncIterator()
        let first: MQTTPacket?
        do {
            first = try await iterator.next()
        } catch {
            timer.cancel()
            channel.close(promise: nil)
            throw MQTTClientError(.connectionFailed, "connection failed before CONNACK", cause: error)
        }
        timer.cancel()
        guard let first else {
            if timedOut.load(ordering: .relaxed) {
                throw MQTTClientError(.connectTimedOut, "no CONNACK within \(configuration.connectTimeout)")
            }
            throw MQTTClientError(.connectionFailed, "broker closed the connection before CONNACK")
        }
        guard case .connack(let connack) = first else {
            channel.close(promise: nil)
            throw MQTTClientError(.connectionFailed, "expected CONNACK, got \(first.packetType)")
        }
        guard connack.returnCode == .accepted else {
            channel.close(promise: nil)
            throw MQTTClientError(
                .connectionRefused(connack.returnCode),
                "broker refused the connection: \(connack.returnCode)"
            )
        }
        if case .closed = state {
            channel.close(promise: nil)
            throw MQTTClientError(.sessionClosed, "the session was closed while connecting")
        }
        didConnect(channel, sessionPresent: connack.sessionPresent, reconnect: reconnect)

        var reason = "broker closed the connection"
        do {
            while let packet = try await iterator.next() { handle(packet, on: channel) }
        } catch {
            reason = "\(error)"
        }
        channel.close(promise: nil)
        didLoseConnection(channel, reason: reason)
    }

    private func didConnect(_ channel: any Channel, sessionPresent: Bool, reconnect: Bool) {
        state = .connected(channel)
        pingOutstanding = false
        logger.info(
            reconnect ? "MQTT reconnected" : "MQTT connected",
            metadata: ["mqtt.session_present": "\(sessionPresent)", "mqtt.pending": "\(pending.count)"]
        )
        if reconnect, !sessionPresent, !subscriptions.isEmpty {
            let packetID = allocatePacketID()
            resubscribeIDs.insert(packetID)
            channel.write(
                MQTTPacket.subscribe(SubscribePacket(packetID: packetID, subscriptions: subscriptions)),
                promise: nil
            )
        }
        // Everything not yet acknowledged goes out again, in order; what was sent before carries DUP.
        for index in pending.indices {
            var packet = pending[index].packet
            packet.dup = pending[index].sent
            pending[index].sent = true
            channel.write(MQTTPacket.publish(packet), promise: nil)
        }
        channel.flush()
        if configuration.keepAlive > .zero {
            keepAliveTask = Task { [clock, interval = configuration.keepAlive] in
                while true {
                    do { try await clock.sleep(for: interval) } catch { return }
                    guard self.keepAliveTick(on: channel) else { return }
                }
            }
        }
        eventContinuation.yield(.connected(sessionPresent: sessionPresent, reconnect: reconnect))
        firstConnectWaiter?.resume()
        firstConnectWaiter = nil
    }

    private func didLoseConnection(_ channel: any Channel, reason: String) {
        keepAliveTask?.cancel()
        keepAliveTask = nil
        guard case .connected(let current) = state, current === channel else { return }
        state = .reconnecting
        logger.warning(
            "MQTT connection lost",
            metadata: ["mqtt.reason": "\(reason)", "mqtt.pending": "\(pending.count)"]
        )
        failSubscribeWaiters(MQTTClientError(.connectionLost, "connection lost before SUBACK: \(reason)"))
        resubscribeIDs.removeAll()
        eventContinuation.yield(.connectionLost(reason: reason))
    }

    /// One keep-alive interval has passed: send PINGREQ, or close the connection when the last one is unanswered.
    private func keepAliveTick(on channel: any Channel) -> Bool {
        guard case .connected(let current) = state, current === channel else { return false }
        if pingOutstanding {
            logger.warning("no PINGRESP within the keep-alive interval; closing the connection")
            channel.close(promise: nil)
            return false
        }
        pingOutstanding = true
        logger.trace("PINGREQ sent")
        channel.writeAndFlush(MQTTPacket.pingreq, promise: nil)
        return true
    }

    private func handle(_ packet: MQTTPacket, on channel: any Channel) {
        switch packet {
        case .puback(let packetID):
            guard let entry = removePending(packetID) else {
                logger.debug("PUBACK for unknown packet", metadata: ["mqtt.packet_id": "\(packetID)"])
                return
            }
            logger.trace("PUBACK received", metadata: ["mqtt.packet_id": "\(packetID)"])
            entry.continuation.resume()
        case .pingresp:
            pingOutstanding = false
        case .suback(let suback):
            if resubscribeIDs.remove(suback.packetID) != nil {
                logger.debug(
                    "subscriptions renewed",
                    metadata: ["mqtt.return_codes": "\(suback.returnCodes.map(\.rawValue))"]
                )
            } else {
                subscribeWaiters.removeValue(forKey: suback.packetID)?.resume(returning: suback.returnCodes)
            }
        case .publish(let publish):
            if publish.qos == .atLeastOnce, let packetID = publish.packetID {
                channel.writeAndFlush(MQTTPacket.puback(packetID: packetID), promise: nil)
            }
            messageContinuation.yield(publish)
        case .connect, .connack, .subscribe, .pingreq, .disconnect:
            logger.warning("unexpected packet from broker; closing", metadata: ["mqtt.packet": "\(packet.packetType)"])
            channel.close(promise: nil)
        }
    }
}
