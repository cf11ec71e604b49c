public import CareStore
public import Logging
public import ServiceLifecycle

/// Delivers one outbox channel for as long as the process runs: a pass over the channel whenever a store change
/// queues something for it (the store's change stream), every ``pollInterval`` otherwise (other processes write
/// the same store, and SQLite tells no other process), and after a failed pass when the channel's back-off has
/// passed. Time is the injected clock's, so tests drive the poll and the back-off.
///
/// As a ``Service`` it delivers until graceful shutdown, then waits up to ``drainTimeout`` for the channel to
/// drain and stops; ``pendingAtStop`` says what was left, which waits in the store for the next run.
public actor OutboxService<Channel: OutboxChannel>: Service {
    public nonisolated let channel: Channel
    public nonisolated let pollInterval: Duration
    public nonisolated let drainTimeout: Duration
    let changes: AsyncStream<[StoreChange]>?
    let clock: any Clock<Duration>
    let logger: Logger
    /// Called with the pending count while the service drains at shutdown.
    let drainProgress: (@Sendable (Int) -> Void)?

    var deliveryTask: Task<Void, Never>?
    var changeTask: Task<Void, Never>?
    /// The delivery loop's poll and back-off.
    let pause: WakeableSleep
    /// Drains waiting for the next pass (or their deadline), by ticket.
    var passWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
    var nextTicket = 0
    var expiredDrains: Set<Int> = []

    /// Passes run so far (for logs and tests).
    public private(set) var passes = 0
    /// Entries still pending when the service stopped (nil until it has).
    public private(set) var pendingAtStop: Int?

    /// - Parameters:
    ///   - channel: what is delivered.
    ///   - changes: the store's change stream (``CareStore/changes()``); nil: only the poll finds new entries.
    ///   - pollInterval: how often the channel is checked when nothing wakes the service.
    ///   - drainTimeout: how long the service, run as a service, waits for the channel to drain at shutdown.
    ///   - clock: drives the poll, the back-off and the drain's deadline.
    ///   - logger: failures (warning).
    ///   - drainProgress: called with the pending count while the service drains at shutdown.
    public init(
        channel: Channel,
        changes: AsyncStream<[StoreChange]>?,
        pollInterval: Duration = .seconds(1),
        drainTimeout: Duration = .seconds(30),
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger,
        drainProgress: (@Sendable (Int) -> Void)? = nil
    ) {
        self.channel = channel
        self.changes = changes
        self.pollInterval = pollInterval
        self.drainTimeout = drainTimeout
        self.clock = clock
        self.pause = WakeableSleep(clock: clock)
        var logger = logger
        logger[metadataKey: "outbox.channel"] = "\(channel.name)"
        self.logger = logger
        self.drainProgress = drainProgress
    }

    // MARK: - Lifecycle

    /// Starts delivering in the background; does nothing when started.
    public func start() {
        guard deliveryTask == nil else { return }
        if let changes {
            let channel = channel
            changeTask = Task { [weak self] in
                for await batch in changes where batch.contains(where: channel.isQueued) {
                    await self?.wake()
                }
            }
        }
        deliveryTask = Task { await self.deliver() }
    }

    /// Delivers until graceful shutdown (or cancellation), then drains the channel for up to ``drainTimeout``.
    public func run() async throws {
        start()
        try? await gracefulShutdown()
        pendingAtStop = await drain(timeout: drainTimeout, progress: drainProgress)
        await stop()
    }

    /// Waits until the channel is empty, `timeout` has passed on the clock, or the receiver refused the channel's
    /// credential (``OutboxChannel/refusedCredential()``), delivering meanwhile (a failed pass is retried after the
    /// channel's back-off, not sooner).
    ///
    /// - Parameters:
    ///   - timeout: the longest wait.
    ///   - progress: called after each pass with the number of pending entries.
    /// - Returns: how many entries are still pending (0 when drained; -1 when the store cannot say).
    public func drain(timeout: Duration, progress: (@Sendable (Int) -> Void)? = nil) async -> Int {
        start()
        nextTicket += 1
        let ticket = nextTicket
        let timer = Task { [clock] in
            do { try await clock.sleep(for: timeout) } catch { return }
            self.expireDrain(ticket)
        }
        defer {
            timer.cancel()
            expiredDrains.remove(ticket)
        }
        // Entries another process queued are not announced by the change stream: look now.
        await wake()
        while true {
            let pending = await channel.pendingCount()
            progress?(pending)
            if pending == 0 || expiredDrains.contains(ticket) || Task.isCancelled { return pending }
            if await channel.refusedCredential() != nil { return pending }
            await nextPass(ticket)
        }
    }

    /// Stops delivering: what is not confirmed stays queued.
    public func stop() async {
        deliveryTask?.cancel()
        await deliveryTask?.value
        deliveryTask = nil
        changeTask?.cancel()
        changeTask = nil
    }

    /// Runs a pass now, or makes the next idle end at once.
    public func wake() async {
        await pause.wake()
    }

    // MARK: - Delivery

    func deliver() async {
        while !Task.isCancelled {
            let pass = await channel.deliverDue()
            passes += 1
            if let failure = pass.failure, !Task.isCancelled {
                logger.warning(
                    "delivery failed; the entry stays queued",
                    metadata: ["error": "\(failure)", "retry.in": "\(pass.retryAfter ?? pollInterval)"]
                )
            }
            for waiter in passWaiters.values { waiter.resume() }
            passWaiters = [:]
            // Until a store change (or a drain) wakes the loop, the poll interval or the back-off has passed.
            await pause.sleep(for: pass.failure == nil ? pollInterval : pass.retryAfter ?? pollInterval)
        }
    }

    /// Waits for the delivery loop's next pass, the drain's deadline, or cancellation.
    func nextPass(_ ticket: Int) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if expiredDrains.contains(ticket) || Task.isCancelled {
                    continuation.resume()
                } else {
                    passWaiters[ticket] = continuation
                }
            }
        } onCancel: {
            Task { await self.expireDrain(ticket) }
        }
    }

    func expireDrain(_ ticket: Int) {
        expiredDrains.insert(ticket)
        passWaiters.removeValue(forKey: ticket)?.resume()
    }
}
