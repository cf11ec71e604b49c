public import BridgeCore
public import CareStore
public import DeviceProfiles
public import Foundation
public import Logging
public import SampleIngest
public import ServiceLifecycle
public import SessionReplay
import Synchronization
public import UnixSignals

/// The bridge runtime: a device transport (live, or recordings replayed) through the profile catalogue into the
/// store, beside the services that follow the store (publishers, alert evaluation), as one ``ServiceGroup``.
///
/// SIGTERM and SIGINT shut the group down gracefully, in reverse order of start: first the ingest (a live
/// transport is asked to stop, notifications stop and devices disconnect; a replay stops reading the file it is
/// in and starts no other), which flushes what it read into the store, then the companion services (a publisher
/// drains its outbox). When the ingest ends by itself (the transport's stream ended, the recordings are done,
/// ``duration`` passed) the group shuts down the same way. The first error (the transport's, the store's, a
/// companion's) ends the run and is rethrown as it is: the caller decides what it means (the CLI maps it to an
/// exit status).
///
/// A shutdown signal while the group already shuts down (a second signal, or the first after the ingest ended by
/// itself) calls ``forceQuit`` with the signal's number, so a publisher's drain waiting on a broker that does not
/// answer cannot hold the process: the caller ends it. The signals are not also cancellation signals of the group
/// (swift-service-lifecycle refuses a signal in both lists).
public struct Bridge: Sendable {
    /// Where the events come from.
    public enum Source: Sendable {
        /// A live transport; `stop` is called once, on graceful shutdown or when ``Bridge/duration`` has passed,
        /// and the transport's stream then ends.
        case live(any DeviceTransport, stop: @Sendable (StopReason) -> Void)
        /// Recordings replayed one after another.
        case recordings([Recording])
    }

    /// Why a live transport is asked to stop.
    public enum StopReason: Sendable, Hashable {
        /// Graceful shutdown of the group (a signal, or ``Bridge/run(until:)``'s trigger).
        case shutdown
        /// ``Bridge/duration`` has passed.
        case duration
    }

    /// One recording of a ``Source/recordings(_:)`` source.
    public struct Recording: Sendable {
        /// The file, for the outcome's ``BridgeOutcome/interruptedIn``.
        public var path: String
        /// Opens the recording when its turn comes (the caller decides how an unreadable file is reported).
        public var open: @Sendable () throws -> ReplayTransport<ContinuousClock>
        /// Called with the current line every few thousand events.
        public var progress: (@Sendable (Int) -> Void)?
        /// Called when the file is done (also when it was interrupted or failed).
        public var finished: (@Sendable () -> Void)?

        public init(
            path: String,
            open: @escaping @Sendable () throws -> ReplayTransport<ContinuousClock>,
            progress: (@Sendable (Int) -> Void)? = nil,
            finished: (@Sendable () -> Void)? = nil
        ) {
            self.path = path
            self.open = open
            self.progress = progress
            self.finished = finished
        }
    }

    public var source: Source
    public var catalog: DeviceCatalog
    public var configuration: PipelineConfiguration
    /// Where samples go; nil discards them (a recording written by ``Source/live(_:stop:)``'s transport, a
    /// validation pass).
    public var store: CareStore?
    /// Services that run beside the ingest: started before it, shut down after it (publishers, alert
    /// evaluation). A companion ending early does not stop the bridge; one that throws does.
    public var services: [any Service]
    /// Samples per store write when replaying; 1 stores (and publishes) each sample as it comes. Live samples are
    /// always written as they come.
    public var batchSize: Int
    /// Stops a live transport after this long.
    public var duration: Duration?
    /// The signals that shut the bridge down gracefully.
    public var signals: [UnixSignal]
    /// Called (from a signal handler's queue) with the signal's number when one of ``signals`` arrives while the
    /// group already shuts down (after an earlier signal, or after the ingest ended); nil ignores such signals.
    public var forceQuit: (@Sendable (Int32) -> Void)?
    /// The clock ``duration`` runs on.
    public var clock: any Clock<Duration>
    public var logger: Logger

    public init(
        source: Source,
        catalog: DeviceCatalog,
        configuration: PipelineConfiguration,
        store: CareStore?,
        services: [any Service] = [],
        batchSize: Int = PipelineRunner.defaultBatchSize,
        duration: Duration? = nil,
        signals: [UnixSignal] = [.sigterm, .sigint],
        forceQuit: (@Sendable (Int32) -> Void)? = nil,
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger
    ) {
        self.source = source
        self.catalog = catalog
        self.configuration = configuration
        self.store = store
        self.services = services
        self.batchSize = batchSize
        self.duration = duration
        self.signals = signals
        self.forceQuit = forceQuit
        self.clock = clock
        self.logger = logger
    }

    /// Runs until the ingest ends and the companions have shut down.
    /// - Parameter recordedAt: stamped on every sample and outcome value the run stores.
    /// - Returns: what the run did; ``BridgeOutcome/interruptedIn`` says whether a shutdown cut a replay short.
    /// - Throws: the first error of the transport, the store or a service, unchanged.
    public func run(recordedAt: Date = Date()) async throws -> BridgeOutcome {
        let sink: any SampleSink = store.map { CareStoreSink(store: $0, recordedAt: recordedAt) } ?? DiscardingSink()
        let requests = StopRequests()
        let ingest = Ingest(bridge: self, sink: sink, requests: requests)
        try await Self.runGroup(
            main: ingest,
            companions: services,
            signals: signals,
            requests: requests,
            forceQuit: forceQuit,
            logger: logger
        )

        var outcome = ingest.outcome
        if let sink = sink as? CareStoreSink {
            outcome.inserted = await sink.inserted
            outcome.duplicates = await sink.duplicates
            outcome.unmatched = await sink.unmatched
            outcome.completed = try await sink.completedEvents()
        }
        return outcome
    }

    /// The ingest as a service: the transport through the pipeline into the sink.
    final class Ingest: Service {
        let bridge: Bridge
        let sink: any SampleSink
        let requests: StopRequests
        private let state = Mutex(BridgeOutcome())

        init(bridge: Bridge, sink: any SampleSink, requests: StopRequests) {
            self.bridge = bridge
            self.sink = sink
            self.requests = requests
        }

        var outcome: BridgeOutcome { state.withLock { $0 } }

        func run() async throws {
            // Ending by itself shuts the group down: a signal from now on is a request to stop again. Ending
            // because of a shutdown is not a request of its own (the signal that caused it is counted once, in
            // whichever order the group and the counter see it).
            defer { if !Task.isShuttingDownGracefully, !Task.isCancelled { _ = requests.note() } }
            switch bridge.source {
            case .live(let transport, let stop):
                try await runLive(transport, stop: stop)
            case .recordings(let recordings):
                try await replay(recordings)
            }
        }

        private func runLive(
            _ transport: any DeviceTransport,
            stop: @escaping @Sendable (StopReason) -> Void
        )
            async throws
        {
            let once = Mutex(false)
            let stopOnce: @Sendable (StopReason) -> Void = { reason in
                guard
                    once.withLock({ stopped in
                        defer { stopped = true }
                        return !stopped
                    })
                else { return }
                stop(reason)
            }
            let timer = bridge.duration.map { [clock = bridge.clock] duration in
                Task {
                    try await clock.sleep(for: duration)
                    stopOnce(.duration)
                }
            }
            defer { timer?.cancel() }
            let bridge = self.bridge
            let sink = self.sink
            let report = try await withTaskCancellationHandler {
                try await withGracefulShutdownHandler {
                    try await PipelineRunner.run(
                        transport,
                        catalog: bridge.catalog,
                        configuration: bridge.configuration,
                        sink: sink,
                        logger: bridge.logger
                    )
                } onGracefulShutdown: {
                    stopOnce(.shutdown)
                }
            } onCancel: {
                stopOnce(.shutdown)
            }
            state.withLock { $0.report = report }
        }

        private func replay(_ recordings: [Recording]) async throws {
            let bridge = self.bridge
            let sink = self.sink
            for recording in recordings {
                if Task.isShuttingDownGracefully || Task.isCancelled {
                    state.withLock { $0.interruptedIn = $0.interruptedIn ?? recording.path }
                    return
                }
                let transport = try recording.open()
                let file = Task {
                    try await PipelineRunner.replay(
                        transport,
                        catalog: bridge.catalog,
                        configuration: bridge.configuration,
                        sink: sink,
                        batchSize: bridge.batchSize,
                        logger: bridge.logger,
                        progress: recording.progress
                    )
                }
                // A shutdown cancels the file being read: its reader stops and what it read is still stored.
                let interrupted = Mutex(false)
                let report: PipelineReport
                do {
                    report = try await withTaskCancellationHandler {
                        try await withGracefulShutdownHandler {
                            try await file.value
                        } onGracefulShutdown: {
                            interrupted.withLock { $0 = true }
                            file.cancel()
                        }
                    } onCancel: {
                        interrupted.withLock { $0 = true }
                        file.cancel()
                    }
                } catch {
                    recording.finished?()
                    throw error
                }
                recording.finished?()
                let cut = interrupted.withLock { $0 }
                state.withLock { outcome in
                    outcome.report.merge(report)
                    if cut { outcome.interruptedIn = recording.path }
                }
                if cut { return }
            }
        }
    }
}

extension Bridge {
    /// Requests to stop: the shutdown signals and the end of the ingest (which shuts the group down).
    final class StopRequests: Sendable {
        private let count = Mutex(0)

        /// Counts one more request and returns how many there have been.
        func note() -> Int {
            count.withLock {
                $0 += 1
                return $0
            }
        }
    }

    /// Counts `signals` beside the group (which sees the first and shuts down gracefully); the first is logged (a
    /// drain may take a while), a signal that finds an earlier request calls `forceQuit`. The sequence is installed before the group starts, so no signal is seen
    /// by one and not the other.
    static func watchForRepeatedSignal(
        _ signals: [UnixSignal],
        requests: StopRequests,
        forceQuit: (@Sendable (Int32) -> Void)?,
        logger: Logger
    ) async -> Task<Void, Never>? {
        guard let forceQuit, !signals.isEmpty else { return nil }
        let sequence = await UnixSignalsSequence(trapping: signals)
        return Task {
            for await signal in sequence {
                guard requests.note() >= 2 else {
                    logger.info(
                        "stopping gracefully (what was read is stored, the outbox drains); a second signal stops now",
                        metadata: ["signal": "\(signal)"]
                    )
                    continue
                }
                logger.warning(
                    "signal during graceful shutdown: stopping now",
                    metadata: ["signal": "\(signal)"]
                )
                forceQuit(signal.rawValue)
            }
        }
    }

    /// Hands a live transport's events to `body`, with the bridge's shutdown handling but no pipeline and no
    /// store (`scan`): graceful shutdown (SIGTERM, SIGINT) or `duration` calls `stop`, and the call returns when
    /// the transport's stream has ended. `services` run beside it as in ``Bridge/services`` (a scanner watchdog);
    /// `duration` runs on `clock`.
    /// - Throws: what the transport or a service throws.
    public static func watch(
        _ transport: any DeviceTransport,
        stop: @escaping @Sendable () -> Void,
        duration: Duration?,
        clock: any Clock<Duration> = ContinuousClock(),
        services: [any Service] = [],
        signals: [UnixSignal] = [.sigterm, .sigint],
        forceQuit: (@Sendable (Int32) -> Void)? = nil,
        logger: Logger,
        body: @escaping @Sendable (TransportEvent) -> Void
    ) async throws {
        let requests = StopRequests()
        let watcher = Watcher(
            transport: transport,
            stop: stop,
            duration: duration,
            clock: clock,
            requests: requests,
            body: body
        )
        try await runGroup(
            main: watcher,
            companions: services,
            signals: signals,
            requests: requests,
            forceQuit: forceQuit,
            logger: logger
        )
    }

    /// Runs `main` with its `companions` in one service group until `main` ends or a signal shuts the group down
    /// gracefully. A companion that returns is ignored; any service that throws shuts the group down and its
    /// error is rethrown. `main` is last in the group, so that it is shut down first and the companions see
    /// everything it did (what the ingest stored, for the publishers). A repeated signal while the group shuts
    /// down calls `forceQuit`.
    private static func runGroup(
        main: some Service,
        companions: [any Service],
        signals: [UnixSignal],
        requests: StopRequests,
        forceQuit: (@Sendable (Int32) -> Void)?,
        logger: Logger
    ) async throws {
        var configurations = companions.map {
            ServiceGroupConfiguration.ServiceConfiguration(
                service: $0,
                successTerminationBehavior: .ignore,
                failureTerminationBehavior: .gracefullyShutdownGroup
            )
        }
        configurations.append(
            .init(
                service: main,
                successTerminationBehavior: .gracefullyShutdownGroup,
                failureTerminationBehavior: .gracefullyShutdownGroup
            )
        )
        var group = ServiceGroupConfiguration(services: configurations, logger: logger)
        group.gracefulShutdownSignals = signals
        let repeats = await watchForRepeatedSignal(
            signals,
            requests: requests,
            forceQuit: forceQuit,
            logger: logger
        )
        defer { repeats?.cancel() }
        try await ServiceGroup(configuration: group).run()
    }

    struct Watcher: Service {
        let transport: any DeviceTransport
        let stop: @Sendable () -> Void
        let duration: Duration?
        let clock: any Clock<Duration>
        let requests: StopRequests
        let body: @Sendable (TransportEvent) -> Void

        func run() async throws {
            defer { if !Task.isShuttingDownGracefully, !Task.isCancelled { _ = requests.note() } }
            let stop = self.stop
            let timer = duration.map { [clock] duration in
                Task {
                    try await clock.sleep(for: duration)
                    stop()
                }
            }
            defer { timer?.cancel() }
            try await withTaskCancellationHandler {
                try await withGracefulShutdownHandler {
                    for try await event in transport.events() { body(event) }
                } onGracefulShutdown: {
                    stop()
                }
            } onCancel: {
                stop()
            }
        }
    }
}
