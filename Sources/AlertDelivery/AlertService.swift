import CarePlan
public import CareStore
import Foundation
import Insights
public import Logging
public import ServiceLifecycle

/// Alert rules evaluated in the bridge's process: the plan's rules are re-evaluated as the store changes (a new
/// sample, an event's outcome, the task list) and every ``evaluationInterval`` (adherence deadlines pass with
/// time), and the given channels of the alert outbox are delivered as alerts change.
///
/// Changes are coalesced: at most one evaluation per ``minimumPause``, over the days from the earliest new
/// sample (a meter's stored readings may be days old) or two days back, to now. Raised and withdrawn alerts are
/// logged (warning and info). On graceful shutdown the rules are evaluated once more and each channel is given up
/// to ``drainTimeout`` to deliver what is pending; what is left stays queued for the next run (or
/// `carebridge alerts deliver`).
public actor AlertService: Service {
    public let store: CareStore
    public let deliverers: [AlertDeliverer]
    public let evaluationInterval: Duration
    public let minimumPause: Duration
    public let drainTimeout: Duration
    let logger: Logger
    /// Called last, when the channels are drained (closes a sender's connection).
    let onStop: (@Sendable () async -> Void)?

    /// Evaluations done so far (for logs and tests).
    public private(set) var evaluations = 0
    /// Notifications still pending per channel when the service stopped (empty until it has).
    public private(set) var pendingAtStop: [String: Int] = [:]

    private var dirtySince: Date?
    private var wakeRequested = false
    private var sleeper: CheckedContinuation<Void, Never>?

    /// - Parameters:
    ///   - store: the store whose rules are evaluated and whose alert outbox is delivered.
    ///   - deliverers: one per channel to deliver (none: evaluate only; the alerts are queued for the channels
    ///     `alerts deliver` enabled).
    ///   - evaluationInterval: re-evaluation without changes (deadlines).
    ///   - minimumPause: the shortest time between two evaluations.
    ///   - drainTimeout: how long each channel may take to deliver at shutdown.
    ///   - onStop: called last, when the channels are drained (closes a sender's connection).
    public init(
        store: CareStore,
        deliverers: [AlertDeliverer] = [],
        evaluationInterval: Duration = .seconds(60),
        minimumPause: Duration = .seconds(1),
        drainTimeout: Duration = .seconds(10),
        logger: Logger,
        onStop: (@Sendable () async -> Void)? = nil
    ) {
        self.onStop = onStop
        self.store = store
        self.deliverers = deliverers
        self.evaluationInterval = evaluationInterval
        self.minimumPause = minimumPause
        self.drainTimeout = drainTimeout
        self.logger = logger
    }

    /// Whether the store's plan has alert rules (any task version with one).
    public static func planHasRules(_ store: CareStore) async throws(CareStoreError) -> Bool {
        for task in try await store.tasks() {
            if try await store.taskVersions(id: task.task.id).contains(where: { !$0.task.alerts.isEmpty }) {
                return true
            }
        }
        return false
    }

    public func run() async throws {
        let changes = store.changes()
        let follower = Task { [weak self] in
            for await batch in changes { await self?.note(batch) }
        }
        defer { follower.cancel() }
        let clock = ContinuousClock()
        var lastEvaluation: ContinuousClock.Instant?
        dirtySince = Date().addingTimeInterval(-2 * 86_400)
        await withGracefulShutdownHandler {
            while !Task.isShuttingDownGracefully, !Task.isCancelled {
                let due = lastEvaluation.map { clock.now - $0 >= evaluationInterval } ?? true
                if dirtySince != nil || due {
                    await evaluate()
                    lastEvaluation = clock.now
                }
                for deliverer in deliverers { _ = await deliverer.deliverDue() }
                await sleep(minimumPause)
            }
        } onGracefulShutdown: {
            Task { await self.wake() }
        }
        // What the last samples changed, then what is pending goes out.
        if dirtySince != nil { await evaluate() }
        for deliverer in deliverers {
            pendingAtStop[deliverer.channel] = await deliverer.drain(timeout: drainTimeout)
        }
        await onStop?()
    }

    /// Notes a committed change: new samples from `start`, or anything else that may move an alert.
    func note(_ batch: [StoreChange]) {
        let twoDaysAgo = Date().addingTimeInterval(-2 * 86_400)
        var from = dirtySince ?? twoDaysAgo
        var relevant = false
        for change in batch {
            switch change {
            case .sampleAdded(_, _, let start):
                relevant = true
                from = min(from, start)
            case .eventUpdated, .taskListChanged, .sampleDeleted:
                relevant = true
            }
        }
        if relevant { dirtySince = from }
    }

    func evaluate() async {
        let from = min(dirtySince ?? Date(), Date().addingTimeInterval(-2 * 86_400))
        dirtySince = nil
        evaluations += 1
        do {
            let result = try await AlertEngine.evaluate(store: store, from: from)
            for id in result.raised {
                guard let alert = try await store.alert(id: id) else { continue }
                logger.warning(
                    "alert raised: \(alert.trip.message)",
                    metadata: ["alert.id": "\(alert.id)", "alert.severity": "\(alert.trip.severity.rawValue)"]
                )
            }
            for id in result.withdrawn {
                guard let alert = try await store.alert(id: id) else { continue }
                logger.info("alert withdrawn: \(alert.trip.message)", metadata: ["alert.id": "\(alert.id)"])
            }
        } catch {
            logger.error("evaluating the alert rules failed; the data is stored", metadata: ["error": "\(error)"])
        }
    }

    /// Sleeps for `duration` or until woken (graceful shutdown).
    private func sleep(_ duration: Duration) async {
        guard !wakeRequested else {
            wakeRequested = false
            return
        }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: duration)
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

    private func wake() {
        wakeRequested = true
        sleeper?.resume()
        sleeper = nil
    }
}
