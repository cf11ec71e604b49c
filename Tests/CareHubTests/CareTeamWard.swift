import BridgeCore
import BridgeFoundation
import CareHub
import CarePlan
import CareStore
import Foundation
import Insights
import Logging
import TestSupport
import Testing

/// Three patients of a programme, each at home with a bridge, written once into a bridge's SQLite store and sent,
/// as the bridges' hub channel sends it, to the hub: Ann (home-1) weighed 71.0 kg two days ago and 72.5 kg an hour
/// ago, her heart rate read beyond what the device measures, an old temperature outside the week, two alerts (one
/// acknowledged); Ben (home-2) weighed 80.5 kg and a second weigh-in deleted (retracted at the hub), an alert
/// withdrawn; Cleo (home-3) with one weigh-in.
struct CareTeamWard {
    static let zone = TimeZone(identifier: "Europe/Berlin")!
    /// Friday 2026-11-27, 09:30 in Berlin.
    static let now = Date(timeIntervalSince1970: 1_795_768_200)
    static let homes = ["ann": "home-1", "ben": "home-2", "cleo": "home-3"]

    let store: CareStore

    /// The bridge's store with the ward's data.
    init(scratch: ScratchDirectory) async throws {
        store = try CareStore(path: scratch.path("bridge.sqlite"), bridgeZone: Self.zone, logger: Logger(label: "test"))
        for patient in Self.homes.keys.sorted() {
            let document = try CarePlanDocument.parse(
                Data(Self.plan(patient).utf8),
                path: "\(patient).json",
                bridgeZone: Self.zone
            )
            _ = try await store.applyPlan(document, at: Self.now.addingTimeInterval(-30 * 86400))
        }
        try await record("ann", .bodyMass, 71.0, "kg", hoursAgo: 48)
        try await record("ann", .bodyMass, 72.5, "kg", hoursAgo: 1)
        try await record("ann", .heartRate, 250, "/min", hoursAgo: 2, comparator: .greaterThan)
        try await record("ann", .bodyTemperature, 37.9, "Cel", hoursAgo: 24 * 10)
        try await record("ben", .bodyMass, 80.5, "kg", hoursAgo: 3)
        let deleted = try await record("ben", .bodyMass, 95.0, "kg", hoursAgo: 2)
        try await store.deleteSample(id: deleted, at: Self.now, reason: "someone else on the scale")
        try await record("cleo", .bodyMass, 64.2, "kg", hoursAgo: 5)
        try await raise("ann", subjects: ["a", "b"])
        let first = try #require(try await store.alerts().first { $0.trip.subject == "a" })
        _ = try await store.acknowledgeAlert(id: first.id, by: "nurse", at: Self.now)
        try await raise("ben", subjects: ["c"])
        try await raise("ben", subjects: [])
    }

    /// Enrols each home for its patient on the hub and sends it what its bridge holds: every sample (the deleted
    /// one, then its retraction) and every alert change, as the hub channel's messages carry them, with the
    /// patient's name (except Cleo's bridge, which sends none, as a bridge from before names did).
    func send(to hub: HubStore) async throws {
        var sequence: Int64 = 0
        func next() -> Int64 {
            sequence += 1
            return sequence
        }
        for (patient, home) in Self.homes.sorted(by: { $0.key < $1.key }) {
            let token = try #require(try await hub.enrol(bridge: home, patients: [patient]))
            let bridge = try #require(try await hub.bridge(token: token))
            var messages: [SyncMessage] = []
            for stored in try await store.scoped(to: patient).samples(matching: SampleQuery(includesDeleted: true)) {
                let id = stored.sample.id.uuidString.lowercased()
                let body = stored.sample.json(in: Self.zone)
                messages.append(SyncMessage(kind: .sample, id: id, sequence: next(), patient: patient, body: body))
                if let deleted = stored.deletedDate {
                    let retraction: JSONValue = .object([
                        "deletedAt": .string(Timestamp.format(deleted, in: Self.zone)), "sample": body,
                    ])
                    messages.append(
                        SyncMessage(kind: .retraction, id: id, sequence: next(), patient: patient, body: retraction)
                    )
                }
            }
            for alert in try await store.alerts() where alert.patientID == patient {
                var raised = alert
                (raised.acknowledgedAt, raised.acknowledgedBy, raised.withdrawnAt) = (nil, nil, nil)
                var changes: [(String, Alert)] = [("raised", raised)]
                if alert.state != "open" { changes.append((alert.state, alert)) }
                for (change, state) in changes {
                    let position = next()
                    messages.append(
                        SyncMessage(
                            kind: .alert,
                            id: "\(alert.id)/\(change)/\(position)",
                            sequence: position,
                            patient: patient,
                            body: .object(["change": .string(change), "alert": state.json(in: Self.zone)])
                        )
                    )
                }
            }
            // Cleo's bridge is an older one that sends no names: the hub shows her id.
            let names = patient == "cleo" ? [:] : [patient: "\(patient.capitalized) Weber"]
            _ = try await hub.receive(SyncBatch(messages: messages, patientNames: names), from: bridge)
        }
    }

    @discardableResult
    private func record(
        _ patient: String,
        _ type: QuantityType,
        _ value: Double,
        _ unit: String,
        hoursAgo: Double,
        comparator: ValueComparator? = nil
    ) async throws -> UUID {
        let sample = QuantitySample(
            type: type,
            value: value,
            unit: HealthUnit(rawValue: unit),
            start: Self.now.addingTimeInterval(-hoursAgo * 3600),
            source: SampleSource(kind: .manual),
            comparator: comparator
        )
        _ = try await store.scoped(to: patient).recordSample(sample, recordedAt: Self.now)
        return sample.id
    }

    /// Evaluates the patient's weigh-in rule with these trips (one per subject) for the last day: a subject
    /// raised before and missing now is withdrawn.
    private func raise(_ patient: String, subjects: [String]) async throws {
        let task = try #require(try await store.scoped(to: patient).tasks().first { $0.name == "weigh-\(patient)" })
        let trips = subjects.enumerated().map { index, subject in
            AlertTrip(
                taskID: task.id,
                ruleID: "heavy",
                taskVersion: task.version,
                taskVersionNumber: task.versionNumber,
                subject: subject,
                severity: .warning,
                message: "\(patient) weighs more than 70 kg (\(subject))",
                value: 72.5,
                unit: HealthUnit(rawValue: "kg"),
                occurredAt: Self.now.addingTimeInterval(-3600 * Double(index + 1)),
                day: "2026-11-27",
                events: [],
                samples: []
            )
        }
        _ = try await store.reconcileAlerts(
            trips,
            taskIDs: [task.id],
            from: Self.now.addingTimeInterval(-86400),
            to: Self.now,
            now: Self.now
        )
    }

    /// A patient's plan: a daily weigh-in linked to body mass, with a rule above 70 kg.
    static func plan(_ patient: String) -> String {
        """
        {"patient": {"id": "\(patient)", "name": "\(patient.capitalized) Weber"},
         "tasks": [
          {"id": "weigh-\(patient)", "title": "Weigh yourself", "kind": "assessment",
           "schedule": {"timeZone": "Europe/Berlin", "elements": [
             {"start": "2026-11-01T00:00:00", "interval": {"days": 1}, "duration": "allDay"}]},
           "linkage": {"type": "bodyMass", "unit": "kg", "aggregation": "first"},
           "alerts": [{"id": "heavy", "when": {">": 70, "unit": "kg"}, "severity": "warning"}]}]}
        """
    }
}
