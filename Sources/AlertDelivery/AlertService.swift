import CarePlan
public import CareStore
import Foundation
import Insights
public import Logging
public import MQTTBridge
public import ServiceLifecycle

/// Alert rules evaluated in the bridge's process: the plan's rules are re-evaluated as the store changes (a new
/// sample, an event's outcome, the task list) and every ``evaluationInterval`` (adherence deadlines pass with
/// time); the alert outbox's services are woken when an evaluation may have queued notifications.
///
/// Changes are coalesced: at most one evaluation per ``minimumPause``, over the days from the earliest new
/// sample (a meter's stored readings may be days old) or two days back, to now. Raised and withdrawn alerts are
/// logged (warning and info). On graceful shutdown the rules are evaluated once more; placed after the outbox
/// services in a ``ServiceGroup`` (which shuts down in reverse order), the service ends before they drain, so
/// what that evaluation queued still goes out.
public actor AlertService: Service {
    public let store: CareStore
    /// The alert outbox's channels, woken after each evaluation.
    public let outboxes: [OutboxService<AlertOutboxChannel>]
    public let evaluationInterval: Duration
    public let minimumPause: Duration
    let logger: Logger

    /// Evaluations done so far (for logs and tests).
    public private(set) var evaluations = 0

    private var dirtySince: Date?
    private let pause: WakeableSleep

    /// - Parameters:
    ///   - store: the store whose rules are evaluated and whose alert outbox is delivered.
    ///   - outboxes: the services delivering the alert outbox's channels (none: evaluate only; the alerts are
    ///     queued for the channels `alerts deliver` enabled).
    ///   - evaluationInterval: re-evaluation without changes (deadlines).
    ///   - minimumPause: the shortest time between two evaluations.
    ///   - clock: measures the interval and the pause.
    public init(
        store: CareStore,
        outboxes: [OutboxService<AlertOutboxChannel>] = [],
        evaluationInterval: Duration = .seconds(60),
        minimumPause: Duration = .seconds(1),
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger
    ) {
        self.store = store
        self.outboxes = outboxes
        self.evaluationInterval = evaluationInterval
        self.minimumPause = minimumPause
        self.pause = WakeableSleep(clock: clock)
        self.logger = logger
    }

    /// Whether the store's plan has alert rules (a task that is not deleted with a version carrying one); one
    /// read, whatever the number of tasks.
    public static func planHasRules(_ store: CareStore) async throws(CareStoreError) -> Bool {
        let versions = try await store.ruleTaskVersions(linkedTo: [])
        let deleted = Set(versions.filter { $0.deletedDate != nil }.map(\.id))
        return versions.contains { !deleted.contains($0.id) && !$0.task.alerts.isEmpty }
    }

    public func run() async throws {
        let changes = store.changes()
        let follower = Task { [weak self] in
            for await batch in changes { await self?.note(batch) }
        }
        defer { follower.cancel() }
        var sinceEvaluation: Duration?
        dirtySince = Date().addingTimeInterval(-2 * 86_400)
        await withGracefulShutdownHandler {
            while !Task.isShuttingDownGracefully, !Task.isCancelled {
                if dirtySince != nil || sinceEvaluation.map({ $0 >= evaluationInterval }) ?? true {
                    await evaluate()
                    sinceEvaluation = .zero
                }
                await pause.sleep(for: minimumPause)
                sinceEvaluation = sinceEvaluation.map { $0 + minimumPause }
            }
        } onGracefulShutdown: {
            Task { await self.pause.wake() }
        }
        // What the last changes did, before the outboxes drain.
        await evaluate()
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
        defer {
            for outbox in outboxes { Task { await outbox.wake() } }
        }
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
}
