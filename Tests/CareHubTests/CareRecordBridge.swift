import BridgeCore
import CarePlan
import CareStore
import Foundation
import Logging
import TestSupport
import Testing

@testable import CareHub

/// One bridge's SQLite store for Ann in Berlin, and the hub channel's own messages taking what it queues to the
/// hub: the record suites write here and compare what either engine then answers.
struct CareRecordBridge {
    static let zone = TimeZone(identifier: "Europe/Berlin")!
    static let patient = "ann"
    /// Friday 2026-11-27, 09:30 in Berlin.
    static let now = Date(timeIntervalSince1970: 1_795_768_200)

    /// The bridge's name at the hub.
    let name: String
    let store: CareStore
    let channel: HubSyncChannel

    /// A bridge named `name` at the hub, with Ann's plan applied 30 days before the suite's now; `before`: what
    /// its store holds before Ann's plan comes.
    init(
        scratch: ScratchDirectory,
        name: String = "home-1",
        before: (CareRecordBridge) async throws -> Void = { _ in }
    ) async throws {
        self.name = name
        store = try CareStore(
            path: scratch.path("\(name).sqlite"),
            bridgeZone: Self.zone,
            logger: Logger(label: "test")
        )
        // The channel builds the messages; it never connects (the tests hand them to the hub's store).
        let tokenFile = try scratch.writeSecret("\(name).token", "cbh_" + String(repeating: "0", count: 64))
        channel = HubSyncChannel(
            store: store,
            client: try HubClient(hub: "https://hub.invalid", credential: .tokenFile(tokenFile)),
            zone: Self.zone,
            logger: Logger(label: "test")
        )
        try await channel.enable()
        try await before(self)
        try await applyPlan(title: "Weigh yourself", at: Self.now.addingTimeInterval(-30 * 86_400))
    }

    /// Ann's plan: a daily weigh-in linked to body mass, with a rule above 70 kg.
    func applyPlan(title: String, at date: Date, effective: String? = nil) async throws {
        let text = """
            {"patient": {"id": "ann", "name": "Ann Weber"},
             "tasks": [
              {"id": "weigh", "title": "\(title)", "kind": "assessment",\(effective.map { #" "effectiveDate": "\#($0)","# } ?? "")
               "schedule": {"timeZone": "Europe/Berlin", "elements": [
                 {"start": "2026-11-01T00:00:00", "interval": {"days": 1}, "duration": "allDay"}]},
               "linkage": {"type": "bodyMass", "unit": "kg", "aggregation": "first"},
               "alerts": [{"id": "heavy", "when": {">": 70, "unit": "kg"}, "severity": "warning"}]}]}
            """
        let document = try CarePlanDocument.parse(Data(text.utf8), path: "ann.json", bridgeZone: Self.zone)
        _ = try await store.applyPlan(document, at: date)
    }

    /// Ann's plan with a pill besides the weigh-in: twice a day, at `morning` (08:00) and 20:00 in Berlin for an
    /// hour each, from `start` (a Berlin day).
    func applyPillPlan(from start: String, at date: Date, morning: String = "08:00") async throws {
        let text = """
            {"patient": {"id": "ann", "name": "Ann Weber"},
             "tasks": [
              {"id": "weigh", "title": "Weigh yourself", "kind": "assessment",
               "schedule": {"timeZone": "Europe/Berlin", "elements": [
                 {"start": "2026-11-01T00:00:00", "interval": {"days": 1}, "duration": "allDay"}]},
               "linkage": {"type": "bodyMass", "unit": "kg", "aggregation": "first"},
               "alerts": [{"id": "heavy", "when": {">": 70, "unit": "kg"}, "severity": "warning"}]},
              {"id": "pill", "title": "Take the pill", "kind": "intervention",
               "schedule": {"timeZone": "Europe/Berlin", "elements": [
                 {"start": "\(start)T\(morning):00", "interval": {"days": 1}, "duration": 3600},
                 {"start": "\(start)T20:00:00", "interval": {"days": 1}, "duration": 3600}]}}]}
            """
        let document = try CarePlanDocument.parse(Data(text.utf8), path: "ann.json", bridgeZone: Self.zone)
        _ = try await store.applyPlan(document, at: date)
    }

    /// Ann takes her pill at `wallTime` (Berlin), completing the event whose window holds it.
    func takePill(at wallTime: String) async throws {
        let at = try Timestamp.parse(wallTime, in: Self.zone)
        try await store.scoped(to: Self.patient).complete(taskID: "pill", at: at, now: at)
    }

    /// A reading of Ann's (`at`: Berlin wall time, `2026-11-27T09:00`).
    @discardableResult
    func record(
        _ type: QuantityType,
        _ value: Double,
        _ unit: String,
        at wallTime: String,
        source: SampleSource.Kind = .manual,
        quarantine: String? = nil,
        comparator: ValueComparator? = nil,
        metadata: [String: String] = [:]
    ) async throws -> QuantitySample {
        let sample = QuantitySample(
            type: type,
            value: value,
            unit: HealthUnit(rawValue: unit),
            start: try Timestamp.parse(wallTime, in: Self.zone),
            source: SampleSource(kind: source),
            metadata: metadata,
            comparator: comparator,
            quarantineReason: quarantine
        )
        _ = try await store.scoped(to: Self.patient).recordSample(sample, recordedAt: Self.now)
        return sample
    }

    /// Enrols the bridge on the hub for Ann (and `others`).
    func enrol(on hub: HubStore, others: [String] = []) async throws -> HubBridge {
        let token = try #require(try await hub.enrol(bridge: name, patients: [Self.patient] + others))
        return try #require(try await hub.bridge(token: token))
    }

    /// Sends the hub every message waiting in the hub's outboxes, as the hub channel builds them; `repeated`: each
    /// batch twice (its answer lost), and every message twice in it.
    func send(to hub: HubStore, as bridge: HubBridge, repeated: Bool = false) async throws {
        while true {
            let entries = try await store.pendingOutbox(channel: HubSyncChannel.storeChannel, limit: 500)
            let alerts = try await store.pendingAlertDeliveries(
                channel: HubSyncChannel.storeChannel,
                limit: 500,
                now: .distantFuture
            )
            guard !entries.isEmpty || !alerts.isEmpty else { return }
            var messages: [SyncMessage] = []
            for entry in entries { if let message = await channel.message(entry) { messages.append(message) } }
            for alert in alerts { if let message = await channel.message(alert) { messages.append(message) } }
            if repeated { messages += messages }
            for _ in 0..<(repeated ? 2 : 1) { _ = try await hub.receive(SyncBatch(messages: messages), from: bridge) }
            try await store.removeOutboxEntries(entries.map(\.sequence), channel: HubSyncChannel.storeChannel)
            for alert in alerts { try await store.completeAlertDelivery(sequence: alert.sequence) }
        }
    }

    /// Evaluates Ann's weigh-in rule with these trips (one per subject) for the last day, at `now`: a subject
    /// raised before and missing now is withdrawn.
    func raise(subjects: [(String, occurredAt: Date)], now: Date) async throws {
        let task = try #require(try await store.scoped(to: Self.patient).tasks().first { $0.id == "weigh" })
        let trips = subjects.map { subject, occurredAt in
            AlertTrip(
                taskID: task.id,
                ruleID: "heavy",
                taskVersion: task.version,
                taskVersionNumber: task.versionNumber,
                subject: subject,
                severity: .warning,
                message: "ann weighs more than 70 kg (\(subject))",
                value: 72.5,
                unit: HealthUnit(rawValue: "kg"),
                occurredAt: occurredAt,
                day: CareRecordRows.day(of: occurredAt, in: Self.zone),
                events: [],
                samples: []
            )
        }
        _ = try await store.reconcileAlerts(
            trips,
            taskIDs: [task.id],
            from: now.addingTimeInterval(-86_400),
            to: now,
            now: now
        )
    }
}
