public import CareStore
public import Logging
public import ServiceLifecycle
import Synchronization

/// Tells every open page that the store changed, whoever wrote it (this process, `replay`, the daemon): a
/// service that looks at the store's change counter every ``WebConfiguration/changePollInterval`` on its clock
/// and fans a tick out to the subscribers (each page's Server-Sent Events stream). Ends every stream when the
/// service group shuts down, so open pages do not hold the server up.
public final class ChangeFeed: Service, Sendable {
    private let monitor: StoreChangeMonitor
    private let interval: Duration
    private let clock: any Clock<Duration>
    private let logger: Logger
    private let subscribers = Mutex<[Int: AsyncStream<Int>.Continuation]>([:])
    private let nextID = Atomic<Int>(0)

    public init(monitor: StoreChangeMonitor, interval: Duration, clock: any Clock<Duration>, logger: Logger) {
        self.monitor = monitor
        self.interval = interval
        self.clock = clock
        self.logger = logger
    }

    /// How many pages are listening.
    public var subscriberCount: Int { subscribers.withLock { $0.count } }

    /// A stream of change ticks (the counter's value), until the page goes or the service ends.
    public func subscribe() -> AsyncStream<Int> {
        let (stream, continuation) = AsyncStream<Int>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = nextID.add(1, ordering: .relaxed).newValue
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        subscribers.withLock { $0[id] = continuation }
        return stream
    }

    public func run() async throws {
        defer { finishAll() }
        do {
            try await loop()
        } catch is CancellationError {
            // Shutdown: the streams end in `defer`.
        }
    }

    private func loop() async throws {
        try await cancelWhenGracefulShutdown {
            var last = try await self.monitor.version()
            while !Task.isCancelled {
                try await self.clock.sleep(for: self.interval)
                do {
                    let version = try await self.monitor.version()
                    if version != last {
                        last = version
                        self.publish(version)
                    }
                } catch {
                    self.logger.warning("live updates: \(error)")
                }
            }
        }
    }

    private func publish(_ version: Int) {
        let continuations = subscribers.withLock { Array($0.values) }
        for continuation in continuations { continuation.yield(version) }
    }

    private func finishAll() {
        let continuations = subscribers.withLock { table in
            defer { table.removeAll() }
            return Array(table.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}
