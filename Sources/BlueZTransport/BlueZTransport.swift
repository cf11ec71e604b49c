public import BridgeCore
public import DeviceSessions
public import Logging
import Synchronization

/// The live transport: bluetoothd over D-Bus.
///
/// Discovers LE devices, reports their advertisements, and connects to the ones the policy plans a GATT link
/// for (one connection attempt at a time), subscribing and reading as the plan says. Each call of `events()`
/// runs its own client on its own bus connection; cancelling the consumer shuts it down gracefully (stop
/// notifications, disconnect, stop discovery).
public struct BlueZTransport: DeviceTransport {
    public var configuration: BlueZConfiguration
    public var policy: (any ConnectionPolicy)?
    public var logger: Logger
    public var status: @Sendable (BlueZStatus) -> Void
    /// Request a graceful stop: notifications stopped, devices disconnected (their `disconnected` events are
    /// still delivered), discovery stopped, then the stream finishes normally.
    public let shutdown = ShutdownSignal()
    /// The scanner of the latest `events()` run, for a watchdog (BridgeRuntime's `ScannerWatchdog`).
    public let scanner = BlueZScanner()

    /// - Parameters:
    ///   - configuration: adapter, timeouts, pairing.
    ///   - policy: decides which devices to connect to; nil only reports advertisements.
    ///   - logger: where the transport logs (structured metadata: `device`, `adapter`, `error`).
    ///   - status: readiness and liveness, for `sd_notify`.
    public init(
        configuration: BlueZConfiguration,
        policy: (any ConnectionPolicy)?,
        logger: Logger,
        status: @escaping @Sendable (BlueZStatus) -> Void = { _ in }
    ) {
        self.configuration = configuration
        self.policy = policy
        self.logger = logger
        self.status = status
    }

    public func events() -> AsyncThrowingStream<TransportEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: TransportEvent.self, throwing: (any Error).self)
        let client = BlueZClient(
            configuration: configuration,
            policy: policy,
            logger: logger,
            output: continuation,
            status: status
        )
        shutdown.onRequest { Task { await client.requestStop() } }
        scanner.attach(client)
        let task = Task { await client.run() }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}

/// A one-shot "stop gracefully" request (SIGINT/SIGTERM in `carebridge run`).
public final class ShutdownSignal: Sendable {
    private let state = Mutex<(requested: Bool, handlers: [@Sendable () -> Void])>((false, []))

    public init() {}

    /// Asks every transport run attached to this signal to stop.
    public func request() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            state.requested = true
            return state.handlers
        }
        for handler in handlers { handler() }
    }

    public var isRequested: Bool { state.withLock { $0.requested } }

    func onRequest(_ handler: @escaping @Sendable () -> Void) {
        let already = state.withLock { state -> Bool in
            state.handlers.append(handler)
            return state.requested
        }
        if already { handler() }
    }
}
