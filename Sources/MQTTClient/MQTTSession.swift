public import Logging
public import NIOCore
import NIOPosix
import NIOSSL

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

    let eventContinuation: AsyncStream<Event>.Continuation
    let messageContinuation: AsyncStream<PublishPacket>.Continuation
    let group: any EventLoopGroup
    let clock: any Clock<Duration>
    let logger: Logger

    enum State {
        case idle
        case connecting
        case connected(any Channel)
        case reconnecting
        case closed
    }

    struct PendingPublish {
        var packet: PublishPacket
        var sent: Bool
        var continuation: CheckedContinuation<Void, any Error>
        var timeout: Task<Void, Never>?
    }

    var state: State = .idle
    /// The TLS context of every connection, made on the first ``connect()`` when ``Configuration/tls`` is set.
    var tlsContext: NIOSSLContext?
    var supervisor: Task<Void, Never>?
    var keepAliveTask: Task<Void, Never>?
    var firstConnectWaiter: CheckedContinuation<Void, any Error>?
    var pingOutstanding = false
    /// The packet identifier used last; the next one follows it (wrapping 65535 → 1). Internal for tests.
    var lastPacketID: UInt16 = 0
    /// Every filter subscribed to, renewed after a reconnect that did not resume the broker's session.
    var subscriptions: [SubscribePacket.Subscription] = []
    var resubscribeIDs: Set<UInt16> = []
    var pending: [PendingPublish] = []
    var subscribeWaiters: [UInt16: CheckedContinuation<[SubAckPacket.ReturnCode], any Error>] = [:]

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
    /// - Throws: ``MQTTClientError`` with `.connectionFailed`, `.connectTimedOut`, `.connectionRefused` or
    ///   `.tlsFailed` when the first attempt fails (no retry is scheduled then), `.sessionClosed` after
    ///   ``disconnect()``.
    public func connect() async throws(MQTTClientError) {
        switch state {
        case .idle: break
        case .connected, .reconnecting: return
        case .connecting: throw MQTTClientError(.connectionFailed, "connect() is already in progress")
        case .closed: throw MQTTClientError(.sessionClosed, "the session was closed; create a new one")
        }
        if let tls = configuration.tls, tlsContext == nil {
            tlsContext = try tls.makeContext()
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
}
