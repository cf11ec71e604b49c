import Logging
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

extension MQTTSession {
    /// Runs for the life of the session: opens the connection, reads packets, and after a loss sleeps the
    /// back-off and tries again.
    func supervise() async {
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
                logger.warning(
                    "reconnect failed",
                    metadata: ["mqtt.attempt": "\(attempt)", "mqtt.error": "\(error.message)"]
                )
                eventContinuation.yield(.reconnectFailed(attempt: attempt, reason: error.message))
            }
        }
    }

    /// Opens one connection and, once CONNACK accepts it, reads packets until it closes.
    ///
    /// - Throws: only when the connection never got as far as an accepted CONNACK.
    func runConnection(reconnect: Bool) async throws(MQTTClientError) {
        let (packets, continuation) = AsyncThrowingStream.makeStream(of: MQTTPacket.self, throwing: (any Error).self)
        let (tlsContext, host) = (self.tlsContext, configuration.host)
        let handshake = tlsContext.map { _ in TLSHandshakeObserver() }
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(.nanoseconds(Int64(configuration.connectTimeout.seconds * 1e9)))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tlsContext, let handshake {
                        try channel.pipeline.syncOperations.addHandlers(
                            Self.tlsHandler(context: tlsContext, host: host),
                            handshake
                        )
                    }
                    try channel.pipeline.syncOperations.addHandlers([
                        ByteToMessageHandler(MQTTPacketDecoder()),
                        MessageToByteHandler(MQTTPacketEncoder()),
                        InboundStreamForwarder(continuation: continuation),
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
                "cannot connect to \(configuration.host) port \(configuration.port): "
                    + ConnectFailureReason.describe(error),
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
            if let tls = configuration.tls,
                Self.isTLSError(error) || handshake?.completed.load(ordering: .relaxed) == false
            {
                throw Self.describeTLSFailure(
                    error,
                    broker: "\(configuration.host):\(configuration.port)",
                    configuration: tls
                )
            }
            throw MQTTClientError(.connectionFailed, "connection failed before CONNACK", cause: error)
        }
        timer.cancel()
        guard let first else {
            if timedOut.load(ordering: .relaxed) {
                throw MQTTClientError(.connectTimedOut, "no CONNACK within \(configuration.connectTimeout)")
            }
            if let tls = configuration.tls, handshake?.completed.load(ordering: .relaxed) == false {
                throw Self.describeTLSFailure(
                    MQTTClientError(.connectionFailed, "closed during the TLS handshake"),
                    broker: "\(configuration.host):\(configuration.port)",
                    configuration: tls
                )
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
            reason = ConnectFailureReason.describe(error)
        }
        channel.close(promise: nil)
        didLoseConnection(channel, reason: reason)
    }

    func didConnect(_ channel: any Channel, sessionPresent: Bool, reconnect: Bool) {
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

    func didLoseConnection(_ channel: any Channel, reason: String) {
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
    func keepAliveTick(on channel: any Channel) -> Bool {
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

    func handle(_ packet: MQTTPacket, on channel: any Channel) {
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
