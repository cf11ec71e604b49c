import BridgeCore
import CarePlan
import Foundation
import GRDB
import Testing

@testable import CareStore

/// One protocol for many patients (`"v22-task-names"`): task ids are unique per patient, the same plan file serves
/// a whole ward, and what a person names is resolved within a patient, never guessed across patients.
@Suite struct WardPlanTests {
    static let morning = StoreFixture.berlinTime(2026, 11, 20, 8, 30)
    static let day = EventQuery(
        from: StoreFixture.berlinTime(2026, 11, 20),
        to: StoreFixture.berlinTime(2026, 11, 21)
    )
    static let ward = CarePlanDocument(tasks: [StoreFixture.medication(), StoreFixture.weighIn()])

    static func beds(_ count: Int) -> [String] { (1...count).map { "bed-\($0)" } }

    /// A store with `beds` patients, each given ``ward``.
    static func admit(_ beds: [String], to store: CareStore) async throws -> [String: PlanApplyReport] {
        var reports: [String: PlanApplyReport] = [:]
        for bed in beds {
            try await store.savePatient(Patient(id: bed, name: "Patient \(bed)"))
            reports[bed] = try await store.scoped(to: bed).applyPlan(ward)
        }
        return reports
    }

    @Test func theSameFileServesTwentyPatientsAndEachCompletesOnlyTheirOwnEvents() async throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let reports = try await Self.admit(Self.beds(20), to: store)
        #expect(reports["bed-1"]?.added == ["medication", "weigh-in"] && reports["bed-1"]?.keys == [:])
        #expect(reports["bed-12"]?.added == ["medication", "weigh-in"])
        #expect(reports["bed-12"]?.keys == ["medication": "medication@bed-12", "weigh-in": "weigh-in@bed-12"])
        // Applying the file again changes nothing for anyone.
        let again = try await store.scoped(to: "bed-12").applyPlan(Self.ward)
        #expect(again.unchanged == ["medication", "weigh-in"] && again.added.isEmpty && again.updated.isEmpty)

        let bed7 = store.scoped(to: "bed-7")
        let tasks = try await bed7.tasks()
        #expect(tasks.map(\.name) == ["medication", "weigh-in"])
        #expect(tasks.map(\.id) == ["medication@bed-7", "weigh-in@bed-7"])
        #expect(tasks.map(\.planTask.id) == ["medication", "weigh-in"])

        let key = try await bed7.taskKey(for: "medication")
        let done = try await bed7.complete(taskID: key, at: Self.morning, now: Self.morning.addingTimeInterval(60))
        #expect(done.taskID == "medication@bed-7" && done.taskName == "medication" && done.isCompleted)

        // A weigh-in filed under bed-5 completes bed-5's linked assessment, nobody else's.
        let report = try await store.scoped(to: "bed-5").recordSamples([
            StoreFixture.weight(71.4, at: Self.morning)
        ])
        #expect(report.inserted == 1 && report.eventsUpdated == 1)
        for bed in Self.beds(20) {
            let events = try await store.scoped(to: bed).events(matching: Self.day)
            #expect(events.count == 2, "\(bed)")
            let done = Set(events.filter(\.isCompleted).map(\.taskName))
            #expect(done == (bed == "bed-7" ? ["medication"] : bed == "bed-5" ? ["weigh-in"] : []), "\(bed)")
            #expect(events.allSatisfy { bed == "bed-1" ? !$0.taskID.contains("@") : $0.taskID.hasSuffix("@\(bed)") })
        }
        let weighIn = try await store.scoped(to: "bed-5").events(matching: Self.day).first { $0.kind == .assessment }
        #expect(weighIn?.outcome?.values.map(\.value) == [71.4])
    }

    @Test func aNameSeveralPatientsShareIsRefusedWithoutThePatientAndListsThem() async throws {
        let fixture = try StoreFixture()
        _ = try await Self.admit(["bed-10", "bed-2", "bed-1"], to: fixture.store)
        let error = await #expect(throws: CareStoreError.self) {
            try await fixture.store.taskKey(for: "medication")
        }
        #expect(error?.code == .patientRequired)
        #expect(error?.message.contains("3 patients (bed-1, bed-2, bed-10)") == true, "\(error?.message ?? "")")
        // bed-10 was admitted first: its task kept the plain key.
        #expect(try await fixture.store.scoped(to: "bed-10").taskKey(for: "medication") == "medication")
        #expect(try await fixture.store.scoped(to: "bed-2").taskKey(for: "medication") == "medication@bed-2")
        // The key names the task without --patient, but not as another patient's.
        #expect(try await fixture.store.taskKey(for: "medication@bed-2") == "medication@bed-2")
        await #expect(throws: CareStoreError.self) {
            try await fixture.store.scoped(to: "bed-1").taskKey(for: "medication@bed-2")
        }
        // A name one patient has needs no patient, as before.
        var mine = StoreFixture.medication()
        mine.id = "physio"
        try await fixture.store.scoped(to: "bed-2").applyPlan(CarePlanDocument(tasks: [mine]))
        #expect(try await fixture.store.taskKey(for: "physio") == "physio")
    }

    @Test func aPatientCannotUseOneTaskIDInTwoPlans() async throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try await store.savePatient(
            Patient(id: "bed-1", name: "Ada"),
            plan: PatientPlan(id: "ward", title: "Ward", patientID: "bed-1")
        )
        try await store.scoped(to: "bed-1").applyPlan(Self.ward)
        let rehab = CarePlanDocument(
            tasks: [StoreFixture.medication()],
            plan: PatientPlan(id: "rehab", title: "Rehab", patientID: "bed-1")
        )
        let error = await #expect(throws: CareStoreError.self) { try await store.scoped(to: "bed-1").applyPlan(rehab) }
        #expect(error?.code == .invalidPatient && error?.taskID == "medication")
    }

    @Test func aStoreFromBeforeTheMigrationKeepsItsKeysOutcomesAndOutwardIds() async throws {
        let queue = try DatabaseQueue()
        let before = try CareStore(writer: queue, bridgeZone: StoreFixture.berlin, logger: .quiet)
        try await before.savePatient(Patient(id: "alice", name: "Alice"))
        try await before.savePatient(Patient(id: "bob", name: "Bob"))
        var bobs = StoreFixture.medication()
        bobs.id = "medication-bob"
        try await before.scoped(to: "alice").applyPlan(Self.ward)
        try await before.scoped(to: "bob").applyPlan(CarePlanDocument(tasks: [bobs]))
        try await before.complete(taskID: "medication", at: Self.morning, now: Self.morning)
        try await before.complete(taskID: "medication-bob", at: Self.morning, now: Self.morning)
        // Back to the v21 layout, as the release before this one left it.
        try await queue.write { db in
            try db.execute(
                sql: """
                    DROP INDEX task_on_name;
                    ALTER TABLE task DROP COLUMN name;
                    DELETE FROM grdb_migrations WHERE identifier = 'v22-task-names';
                    """
            )
        }
        let outcomesBefore = try await queue.read { db in
            try String.fetchAll(
                db,
                sql: "SELECT taskID || '/' || taskUUID || '/' || occurrence FROM outcome ORDER BY id"
            )
        }

        let store = try CareStore(writer: queue, bridgeZone: StoreFixture.berlin, logger: .quiet)
        #expect(try await store.appliedMigrations().contains(TaskNameSchema.migrationName))
        let outcomesAfter = try await queue.read { db in
            try String.fetchAll(
                db,
                sql: "SELECT taskID || '/' || taskUUID || '/' || occurrence FROM outcome ORDER BY id"
            )
        }
        #expect(outcomesAfter == outcomesBefore && outcomesAfter.count == 2)
        let names = try await queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM task WHERE name = id")
        }
        #expect(names == 3)
        #expect(try await store.tasks().map(\.id).sorted() == ["medication", "medication-bob", "weigh-in"])
        #expect(try await store.taskKey(for: "medication") == "medication", "one patient has it: no --patient")
        #expect(try await store.scoped(to: "alice").events(matching: Self.day).filter(\.isCompleted).count == 1)

        // After the migration, Bob gets Alice's protocol too; Alice's keys stay as they were.
        let report = try await store.scoped(to: "bob").applyPlan(Self.ward)
        #expect(report.keys == ["medication": "medication@bob", "weigh-in": "weigh-in@bob"])
        let bob = try await store.scoped(to: "bob").events(matching: Self.day)
        #expect(bob.map(\.taskID).sorted() == ["medication-bob", "medication@bob", "weigh-in@bob"])
        #expect(bob.filter(\.isCompleted).map(\.taskID) == ["medication-bob"])
        #expect(try await store.scoped(to: "alice").tasks().map(\.id) == ["medication", "weigh-in"])
    }
}
