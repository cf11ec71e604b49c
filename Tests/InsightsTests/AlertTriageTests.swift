import BridgeCore
import CarePlan
import CareStore
import Foundation
import Insights
import Testing

/// What a care team sees first: no adherence alerts for time before the plan was applied (or before the patient
/// was in the store), the most severe and newest first, and a backlog acknowledged in one step.
@Suite struct AlertTriageTests {
    typealias F = AlertFixture

    static let missed = AlertRule(id: "missed", condition: .adherence(fewerThan: 2, by: nil))

    @Test func noAdherenceAlertForDaysBeforeTheTaskVersionWasApplied() async throws {
        let fixture = try F()
        // The schedule starts 2026-10-01; the plan is applied on 11-20 at 14:00, after that day's 08:00 dose.
        try await fixture.store.addTask(F.medication([Self.missed]), at: F.time(2026, 11, 20, 14))
        try await AlertEngine.evaluate(store: fixture.store, from: F.time(2026, 10, 1), now: F.time(2026, 11, 23, 1))
        let alerts = try await fixture.store.alerts()
        #expect(alerts.map(\.trip.day) == ["2026-11-20", "2026-11-21", "2026-11-22"])
        // On the day it was applied only the evening dose is judged (fewerThan counts at most what is left).
        #expect(alerts.first?.trip.message == "Medication: 0 of 1 done that day on 2026-11-20")
        #expect(alerts.first?.trip.events.count == 1)
        // Taking that dose leaves nothing to say about 11-20.
        try await fixture.store.complete(
            taskID: "medication",
            at: F.time(2026, 11, 20, 20, 5),
            now: F.time(2026, 11, 20, 21)
        )
        let result = try await AlertEngine.evaluate(
            store: fixture.store,
            from: F.time(2026, 11, 20),
            now: F.time(2026, 11, 23, 2)
        )
        #expect(result.withdrawn == [alerts[0].id])
    }

    @Test func noAdherenceAlertForDaysBeforeTheStoreFirstSawThePatient() async throws {
        let fixture = try F()
        try await fixture.store.addTask(F.medication([Self.missed]), at: F.time(2026, 11, 1))
        // The first patient adopts the tasks recorded so far; the store first sees her on 11-21 at 10:00.
        try await fixture.store.savePatient(Patient(id: "ada", name: "Ada"), at: F.time(2026, 11, 21, 10))
        try await AlertEngine.evaluate(store: fixture.store, from: F.time(2026, 11, 1), now: F.time(2026, 11, 23, 1))
        let alerts = try await fixture.store.alerts()
        #expect(alerts.map(\.trip.day) == ["2026-11-21", "2026-11-22"])
        #expect(alerts.first?.trip.message == "Medication: 0 of 1 done that day on 2026-11-21")
    }

    /// A pain score with an info, a warning and a critical threshold, answered 9 on 11-10 and 4 on 11-12.
    static func painHistory() async throws -> F {
        let fixture = try F()
        try await fixture.store.addTask(
            F.pain([
                AlertRule(id: "mild", severity: .info, condition: .compare(.greaterThanOrEqual, 3, unit: nil)),
                AlertRule(id: "strong", severity: .warning, condition: .compare(.greaterThanOrEqual, 5, unit: nil)),
                AlertRule(id: "severe", severity: .critical, condition: .compare(.greaterThanOrEqual, 8, unit: nil)),
            ]),
            at: F.time(2026, 11, 1)
        )
        try await fixture.answer("pain", "9", at: F.time(2026, 11, 10, 9))
        try await fixture.answer("pain", "4", at: F.time(2026, 11, 12, 9))
        try await AlertEngine.evaluate(store: fixture.store, from: F.time(2026, 11, 1), now: F.time(2026, 11, 13))
        return fixture
    }

    @Test func alertsForTriageAreMostSevereThenNewestFirstAndFilterBySeverity() async throws {
        let fixture = try await Self.painHistory()
        let triage = try await fixture.store.alerts(order: .triage)
        #expect(
            triage.map { "\($0.trip.day) \($0.trip.ruleID)" } == [
                "2026-11-10 severe", "2026-11-10 strong", "2026-11-12 mild", "2026-11-10 mild",
            ]
        )
        // The default stays oldest first (a period's history).
        #expect(
            try await fixture.store.alerts().map(\.trip.day) == [
                "2026-11-10", "2026-11-10", "2026-11-10", "2026-11-12",
            ]
        )
        let atLeastWarning = try await fixture.store.alerts(severity: .warning, order: .triage)
        #expect(atLeastWarning.map(\.trip.ruleID) == ["severe", "strong"])
        #expect(try await fixture.store.alerts(severity: .critical).map(\.trip.ruleID) == ["severe"])
    }

    @Test func severalAlertsAreAcknowledgedTogetherOrNoneIs() async throws {
        let fixture = try await Self.painHistory()
        let alerts = try await fixture.store.alerts()
        let unknown = (alerts.map(\.id).max() ?? 0) + 100
        await #expect(throws: CareStoreError.self) {
            try await fixture.store.acknowledgeAlerts(ids: [alerts[0].id, unknown], by: "Nurse Kim")
        }
        #expect(try await fixture.store.alerts(includeClosed: false).count == 4, "an unknown id acknowledges none")
        let done = try await fixture.store.acknowledgeAlerts(
            ids: [alerts[0].id, alerts[1].id, alerts[0].id],
            by: "Nurse Kim",
            at: F.time(2026, 11, 13, 8)
        )
        #expect(done.map(\.id) == [alerts[0].id, alerts[1].id])
        #expect(done.allSatisfy { $0.acknowledgedBy == "Nurse Kim" && $0.acknowledgedAt == F.time(2026, 11, 13, 8) })
        #expect(try await fixture.store.alerts(includeClosed: false).count == 2)
    }

    @Test func aBacklogBeforeADateIsAcknowledgedAndWhatCameAfterStaysOpen() async throws {
        let fixture = try await Self.painHistory()
        let done = try await fixture.store.acknowledgeAlerts(before: F.time(2026, 11, 11), by: "Nurse Kim")
        #expect(done.count == 3 && done.allSatisfy { $0.trip.day == "2026-11-10" && !$0.isOpen })
        let open = try await fixture.store.alerts(includeClosed: false)
        #expect(open.map { "\($0.trip.day) \($0.trip.ruleID)" } == ["2026-11-12 mild"])
        #expect(try await fixture.store.acknowledgeAlerts(before: F.time(2026, 11, 11), by: nil).isEmpty)
    }

    /// A ward's list reads every patient at once; what it reads must be what each patient's own page reads.
    @Test func aWardIsReadInOnePassAndAgreesWithEachPatientsOwnReads() async throws {
        let fixture = try F()
        let rules = [
            AlertRule(id: "strong", severity: .warning, condition: .compare(.greaterThanOrEqual, 5, unit: nil)),
            AlertRule(id: "severe", severity: .critical, condition: .compare(.greaterThanOrEqual, 8, unit: nil)),
        ]
        for (index, id) in ["ada", "ben", "cleo"].enumerated() {
            try await fixture.store.savePatient(Patient(id: id, name: id.capitalized), at: F.time(2026, 11, 1))
            var pain = F.pain(rules)
            pain.id = "pain-\(id)"
            try await fixture.store.scoped(to: id).addTask(pain, at: F.time(2026, 11, 1))
            var medication = F.medication([])
            medication.id = "medication-\(id)"
            try await fixture.store.scoped(to: id).addTask(medication, at: F.time(2026, 11, 1))
            // ada answers 9 (two alerts), ben 6 (one), cleo 2 (none).
            try await fixture.answer("pain-\(id)", ["9", "6", "2"][index], at: F.time(2026, 11, 10, 9))
        }
        try await fixture.store.complete(
            taskID: "medication-ben",
            at: F.time(2026, 11, 10, 8, 30),
            now: F.time(2026, 11, 10, 9)
        )
        try await AlertEngine.evaluate(store: fixture.store, from: F.time(2026, 11, 1), now: F.time(2026, 11, 11))
        let adaAlerts = try await fixture.store.scoped(to: "ada").alerts()
        _ = try await fixture.store.acknowledgeAlerts(
            ids: [adaAlerts[0].id],
            by: "Nurse Kim",
            at: F.time(2026, 11, 11, 8)
        )

        let counts = try await fixture.store.openAlertCounts()
        #expect(counts == ["ada": 1, "ben": 1])
        for id in ["ada", "ben", "cleo"] {
            let own = try await fixture.store.scoped(to: id).alerts(includeClosed: false).count
            #expect((counts[id] ?? 0) == own, "\(id)")
        }
        #expect(try await fixture.store.scoped(to: "ben").openAlertCounts() == ["ben": 1])

        let week = EventQuery(from: F.time(2026, 11, 4), to: F.time(2026, 11, 11))
        let ward = try await fixture.store.events(matching: week, patients: ["ada", "ben", "cleo"])
        #expect(ward.keys.sorted() == ["ada", "ben", "cleo"])
        for id in ["ada", "ben", "cleo"] {
            let own = try await fixture.store.scoped(to: id).events(matching: week)
            #expect(ward[id]?.map(\.key) == own.map(\.key), "\(id)")
            #expect(ward[id]?.map(\.outcome) == own.map(\.outcome), "\(id)")
            #expect(own.allSatisfy { $0.taskID.hasSuffix(id) }, "a patient's page reads only that patient's tasks")
        }
        #expect(ward["ben"]?.filter(\.isCompleted).map(\.taskID).sorted() == ["medication-ben", "pain-ben"])
        // Only the patients asked for.
        #expect(try await fixture.store.events(matching: week, patients: ["cleo"]).keys.sorted() == ["cleo"])
    }
}
