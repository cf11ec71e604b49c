import BridgeCore
import BridgeFoundation
import CarePlan
public import CareStore
public import Foundation
public import Logging
import MQTTClient
import NIOCore
public import ServiceLifecycle

/// The care plan in Home Assistant, through the same discovery module as the readings: per task a sensor with its
/// state today and next due time, per intervention a button that completes the current event, and the day's
/// adherence per patient, published (retained) on the process's shared ``BrokerConnection``.
///
/// The states are published again whenever the store's events or tasks change and every ``refresh`` on the
/// injected clock (a due event turns overdue with time). A button press arrives as a command on
/// `<topic>/plan/<task>/complete` naming the event it was offered for; it completes that event with the outcome's
/// author `Home Assistant` when the event is still the task's current one and not done. Anything else (an unknown
/// task or topic, a stale event, an event already done — a repeated press) is refused and logged, and the store
/// stays as it was.
public actor PlanStatePublisher: Service {
    /// What became of one command.
    public enum CommandResult: Sendable, Equatable {
        case completed(EventKey)
        case refused(String)
    }

    /// The outcome author a button press records.
    public static let author = "Home Assistant"

    public nonisolated let connection: BrokerConnection
    public nonisolated let discovery: HomeAssistantDiscovery
    /// How often the states are published again without a store change.
    public nonisolated let refresh: Duration
    let store: CareStore
    let zone: TimeZone
    let clock: any Clock<Duration>
    let now: @Sendable () -> Date
    let logger: Logger
    /// Commands handled so far, oldest first (what the tests and the log see).
    public private(set) var commands: [CommandResult] = []

    /// - Parameters:
    ///   - store: the plan and its outcomes.
    ///   - connection: the process's broker connection (the bridge's, whose availability the plan entities use).
    ///   - discovery: topics and discovery configs.
    ///   - zone: the zone of "today" and of the published times.
    ///   - refresh: how often the states are published again without a store change.
    ///   - clock: measures ``refresh``.
    ///   - now: the wall clock.
    ///   - logger: refused commands (warning), completions (info).
    public init(
        store: CareStore,
        connection: BrokerConnection,
        discovery: HomeAssistantDiscovery,
        zone: TimeZone,
        refresh: Duration = .seconds(60),
        clock: any Clock<Duration> = ContinuousClock(),
        now: @escaping @Sendable () -> Date = { Date() },
        logger: Logger
    ) {
        self.store = store
        self.connection = connection
        self.discovery = discovery
        self.zone = zone
        self.refresh = refresh
        self.clock = clock
        self.now = now
        self.logger = logger
    }

    /// The token a button sends for `event`: its task version and occurrence.
    public static func token(_ event: CareEvent) -> String {
        "\(event.key.taskVersion.uuidString.lowercased()):\(event.key.occurrence)"
    }

    // MARK: - Service

    /// Subscribes to the buttons' commands and publishes the plan, again on every store change and every
    /// ``refresh``, until cancelled or shut down.
    public func run() async throws {
        guard let session = await connection.connectedSession() else { return }
        let changes = store.changes()
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.listen(on: session) }
                group.addTask {
                    for await _ in changes { await self.publish() }
                }
                group.addTask {
                    while !Task.isCancelled {
                        await self.publish()
                        do { try await self.clock.sleep(for: self.refresh) } catch { return }
                    }
                }
                await group.next()
                group.cancelAll()
            }
        }
    }

    func listen(on session: MQTTSession) async {
        do {
            _ = try await session.subscribe([.init(topicFilter: discovery.planCommandFilter, qos: .atLeastOnce)])
        } catch {
            logger.error("cannot subscribe to the plan's button commands", metadata: ["error": "\(error)"])
            return
        }
        for await message in session.messages {
            guard message.topic.hasPrefix("\(discovery.topicPrefix)/plan/") else { continue }
            _ = await handle(topic: message.topic, payload: String(buffer: message.payload))
        }
    }

    // MARK: - Commands

    /// Handles one command: completes the current event of the topic's intervention when `payload` names it.
    @discardableResult
    public func handle(topic: String, payload: String) async -> CommandResult {
        let result = await resolve(topic: topic, payload: payload)
        commands.append(result)
        switch result {
        case .completed(let key):
            logger.info("completed from Home Assistant", metadata: ["task": "\(key.taskID)", "event": "\(key)"])
            await publish()
        case .refused(let reason):
            logger.warning(
                "Home Assistant command refused",
                metadata: ["mqtt.topic": "\(topic)", "reason": "\(reason)"]
            )
        }
        return result
    }

    func resolve(topic: String, payload: String) async -> CommandResult {
        guard let level = discovery.commandTaskLevel(topic) else { return .refused("not a command topic") }
        let now = now()
        do {
            guard
                let task = try await store.tasks().map(\.task).first(where: {
                    HomeAssistantDiscovery.deviceID(key: $0.id) == level && $0.kind == .intervention
                })
            else { return .refused("no intervention \(level) in the plan") }
            let today = try await events(on: now, taskIDs: [task.id])
            guard let current = Self.current(today, at: now) else { return .refused("no event of \(task.id) today") }
            let token = payload.trimmingCharacters(in: .whitespacesAndNewlines)
            guard token == Self.token(current) else { return .refused("stale command for \(task.id): \(token)") }
            guard current.outcome == nil else { return .refused("\(task.id) \(current.key) already has an outcome") }
            let at = (current.start...current.end).contains(now) ? now : current.start
            let result = try await store.complete(
                taskID: task.id,
                occurrence: current.key.occurrence,
                at: at,
                entry: Completion(author: Self.author),
                now: now
            )
            return result.changed ? .completed(result.event.key) : .refused("\(task.id) \(current.key) is already done")
        } catch {
            return .refused("the store refused: \(error.message)")
        }
    }

    // MARK: - Publishing

    /// Publishes every task's sensor (and an intervention's button) and the day's adherence.
    public func publish() async {
        let now = now()
        do {
            let tasks = try await store.tasks()
            // Without a plan there is nothing to show (and no entities to create).
            guard !tasks.isEmpty else { return }
            let today = try await events(on: now, taskIDs: [])
            let ahead = try await store.events(
                matching: EventQuery(from: now, to: now.addingTimeInterval(8 * 86_400))
            )
            for stored in tasks {
                let task = stored.task
                let events = today.filter { $0.key.taskID == task.id }
                let current = Self.current(events, at: now)
                try await connection.announce(discovery.taskConfig(task))
                if task.kind == .intervention {
                    try await connection.announce(
                        discovery.buttonConfig(task, token: current.map(Self.token) ?? "none")
                    )
                }
                let next = ahead.first { $0.key.taskID == task.id && $0.outcome == nil && $0.start > now }
                var state: JSONObject = [
                    "state": .string(current.map { Self.label($0.state(at: now, zone: zone)) } ?? "none"),
                    "next_due": next.map { .string(Timestamp.format($0.start, in: zone)) } ?? .null,
                    "events_today": .int(events.count),
                    "done_today": .int(events.filter(\.isCompleted).count),
                    "task": .string(task.id),
                ]
                if let current { state["event"] = .string(Self.token(current)) }
                try await connection.publish(
                    topic: "\(discovery.planTopic(task: task.id))/state",
                    payload: JSONValue.object(state).serialized(),
                    retain: true
                )
            }
            try await publishAdherence(tasks: tasks, today: today)
        } catch {
            logger.warning("the plan's states were not published", metadata: ["error": "\(error)"])
        }
    }

    func publishAdherence(tasks: [StoredTask], today: [CareEvent]) async throws {
        let patientOf = Dictionary(tasks.map { ($0.task.id, $0.patientID) }) { first, _ in first }
        let counted = tasks.filter(\.task.impactsAdherence).map(\.task.id)
        let events = today.filter { counted.contains($0.key.taskID) }
        let patients = try await store.patients()
        let groups: [(PatientTag?, [CareEvent])] =
            patients.count > 1
            ? patients.map { patient in
                (
                    PatientTag(id: patient.id, name: patient.name),
                    events.filter { patientOf[$0.key.taskID] == patient.id }
                )
            }
            : [(nil, events)]
        for (patient, events) in groups {
            try await connection.announce(discovery.adherenceConfig(patient: patient))
            let done = events.filter(\.isCompleted).count
            let percent: JSONValue =
                events.isEmpty ? .null : .double((Double(done) * 100 / Double(events.count)).rounded())
            let state: JSONValue = .object(["percent": percent, "done": .int(done), "total": .int(events.count)])
            try await connection.publish(
                topic: discovery.adherenceTopic(patient: patient),
                payload: state.serialized(),
                retain: true
            )
        }
    }

    /// Today's events in the store's zone (of `taskIDs`; all when empty).
    func events(on now: Date, taskIDs: Set<String>) async throws(CareStoreError) -> [CareEvent] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let start = calendar.startOfDay(for: now)
        let end = calendar.date(byAdding: .day, value: 1, to: start) ?? start.addingTimeInterval(86_400)
        return try await store.events(matching: EventQuery(from: start, to: end, taskIDs: taskIDs))
    }

    /// The event a task's sensor and button stand for: the first of today's without an outcome that has begun
    /// (else the first still ahead), else the last of the day.
    static func current(_ events: [CareEvent], at now: Date) -> CareEvent? {
        let open = events.filter { $0.outcome == nil }
        return open.first { $0.start <= now } ?? open.first ?? events.last
    }

    /// The sensor's words: `done`, `not done`, `due`, `overdue`.
    static func label(_ state: EventState) -> String {
        switch state {
        case .done: "done"
        case .notDone: "not done"
        case .due: "due"
        case .late, .missed: "overdue"
        }
    }
}
