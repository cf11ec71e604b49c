import BridgeCore
import CarePlan
import CareStore
import Foundation
import GRDB
import TestSupport
import Testing

/// The ingest session: the plan, patients, routing and lookup ids kept between notifications, read again when
/// anything they describe changes, whoever changed it (this store, another store value on the same file, as
/// another process is), and storing exactly what a fresh read each time stores.
@Suite struct IngestSessionTests {
    static let day = StoreFixture.berlinTime(2026, 11, 20, 7, 0)
    static let planDate = StoreFixture.berlinTime(2026, 11, 1)

    /// Another store on the fixture's file: another SQLite connection, as another process has.
    static func secondStore(_ fixture: StoreFixture) throws -> CareStore {
        try CareStore(
            path: fixture.directory.path("care/store.sqlite"),
            bridgeZone: StoreFixture.berlin,
            logger: .quiet
        )
    }

    static func weighIn(_ id: String, _ aggregation: Aggregation) -> CareTask {
        var task = StoreFixture.weighIn(aggregation: aggregation, effectiveDate: planDate)
        task.id = id
        return task
    }

    static func minute(_ minutes: Int) -> Date { day.addingTimeInterval(Double(minutes) * 60) }

    static func values(_ store: CareStore, task: String, patient: String? = nil) async throws -> [Double] {
        let events = try await store.scoped(to: patient).events(
            matching: EventQuery(from: StoreFixture.berlinTime(2026, 11, 20), to: StoreFixture.berlinTime(2026, 11, 21))
        )
        return events.filter { $0.key.taskID == task }.flatMap { $0.outcome?.values.map(\.value) ?? [] }
    }

    @Test func notificationsReuseThePlanReadOnceWhileNothingChanges() async throws {
        let fixture = try StoreFixture()
        try await fixture.store.addTask(Self.weighIn("weigh-in", .each), at: Self.planDate)
        for minute in 0..<5 {
            let report = try await fixture.store.recordSamples([
                StoreFixture.weight(70 + Double(minute) / 10, at: Self.minute(minute), payload: UInt8(minute))
            ])
            #expect(report.inserted == 1 && report.eventsUpdated == 1)
        }
        #expect(fixture.store.ingestSession.loads == 1)
        #expect(try await Self.values(fixture.store, task: "weigh-in") == [70, 70.1, 70.2, 70.3, 70.4])
    }

    @Test func aTaskAddedThroughTheSameStoreCompletesTheNextNotification() async throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let first = try await store.recordSamples([StoreFixture.weight(70, at: Self.minute(0), payload: 1)])
        #expect(first.unmatched == 1 && first.eventsUpdated == 0)
        try await store.addTask(Self.weighIn("weigh-in", .each), at: Self.planDate)
        let second = try await store.recordSamples([StoreFixture.weight(71, at: Self.minute(1), payload: 2)])
        #expect(second.unmatched == 0 && second.eventsUpdated == 1)
        // An outbox enabled in between (a write that is not the plan) keeps the plan read.
        try await store.enableOutbox()
        let third = try await store.recordSamples([StoreFixture.weight(72, at: Self.minute(2), payload: 3)])
        #expect(third.eventsUpdated == 1)
        #expect(try await store.outboxCount() == 1)
        #expect(store.ingestSession.loads == 2)
        // A deleted task completes nothing from the next notification on.
        try await store.deleteTask(id: "weigh-in", effective: Self.minute(3), at: Self.minute(3))
        let fourth = try await store.recordSamples([StoreFixture.weight(73, at: Self.minute(4), payload: 4)])
        #expect(fourth.unmatched == 1 && fourth.eventsUpdated == 0)
        #expect(store.ingestSession.loads == 3)
    }

    @Test func aPlanChangedByAnotherConnectionCountsForTheNextNotification() async throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let other = try Self.secondStore(fixture)
        try await store.addTask(Self.weighIn("weigh-in", .each), at: Self.planDate)
        #expect(
            try await store.recordSamples([StoreFixture.weight(70, at: Self.minute(0), payload: 1)]).eventsUpdated == 1
        )
        // The other connection stores samples (and origin rows) in between: ids stay unique.
        #expect(try await other.recordSamples([StoreFixture.weight(71, at: Self.minute(1), payload: 2)]).inserted == 1)
        #expect(try await store.recordSamples([StoreFixture.weight(72, at: Self.minute(2), payload: 3)]).inserted == 1)
        #expect(try await other.recordSamples([StoreFixture.weight(73, at: Self.minute(3), payload: 4)]).inserted == 1)
        // A second linked task applied by the other connection: the very next notification completes both.
        try await other.addTask(Self.weighIn("weigh-max", .max), at: Self.minute(4))
        let report = try await store.recordSamples([StoreFixture.weight(74, at: Self.minute(5), payload: 5)])
        #expect(report.eventsUpdated == 2 && report.unmatched == 0)
        #expect(try await Self.values(store, task: "weigh-in") == [70, 71, 72, 73, 74])
        #expect(try await Self.values(store, task: "weigh-max") == [74])
        // Deleted there, it completes nothing here from the next notification on.
        try await other.deleteTask(id: "weigh-max", effective: Self.minute(6), at: Self.minute(6))
        let after = try await store.recordSamples([StoreFixture.weight(75, at: Self.minute(7), payload: 6)])
        #expect(after.eventsUpdated == 1)
        let origins = try await store.databaseWriter.read { db in
            try Int.fetchOne(db, sql: "SELECT count(DISTINCT origin) FROM sampleRow")
        }
        #expect(origins == 6)
    }

    @Test func patientsAndAssignmentsChangedBetweenNotificationsRouteTheNextOne() async throws {
        let fixture = try await PeopleRoutingTests.store(patients: ["alice", "bob"])
        let store = fixture.store
        let other = try Self.secondStore(fixture)
        let scale = "AA:00:00:00:00:01"
        func weight(_ kilograms: Double, _ minute: Int, device: String = scale) -> QuantitySample {
            PeopleRoutingTests.weight(kilograms, device: device, at: Self.minute(minute))
        }
        try await store.assignDevice(scale, to: "alice")
        #expect(try await store.recordSamples([weight(70, 0)]).unassigned == 0)
        try await store.assignDevice(scale, to: "bob")
        #expect(try await store.recordSamples([weight(80, 1)]).unassigned == 0)
        try await other.assignDevice(scale, to: "alice")
        #expect(try await store.recordSamples([weight(71, 2)]).unassigned == 0)
        #expect(try await Self.values(store, task: "weigh-alice", patient: "alice") == [70, 71])
        #expect(try await Self.values(store, task: "weigh-bob", patient: "bob") == [80])
        // A patient and an assignment added by the other connection, then by this store.
        try await other.savePatient(Patient(id: "carol", name: "Carol"))
        try await other.assignDevice("AA:00:00:00:00:02", to: "carol")
        #expect(try await store.recordSamples([weight(60, 3, device: "AA:00:00:00:00:02")]).unassigned == 0)
        try await store.savePatient(Patient(id: "dave", name: "Dave"))
        try await store.assignDevice("AA:00:00:00:00:03", to: "dave")
        #expect(try await store.recordSamples([weight(90, 4, device: "AA:00:00:00:00:03")]).unassigned == 0)
        let owners = try await store.samples(matching: SampleQuery()).sorted { $0.sample.start < $1.sample.start }
            .map(\.patientID)
        #expect(owners == ["alice", "bob", "alice", "carol", "dave"])
    }

    /// The same notifications stored through one session and through a fresh read for each (a new store value
    /// per write, as every write did before the session): every table holds the same rows.
    @Test func storesExactlyWhatAFreshReadPerNotificationStores() async throws {
        let kept = try CareStore(writer: DatabaseQueue(), bridgeZone: StoreFixture.berlin, logger: .quiet)
        let freshQueue = try DatabaseQueue()
        let fresh = try CareStore(writer: freshQueue, bridgeZone: StoreFixture.berlin, logger: .quiet)
        for store in [kept, fresh] {
            try await store.enableOutbox(at: Self.planDate)
            try await store.addTask(Self.weighIn("weigh-each", .each), at: Self.planDate)
            try await store.addTask(Self.weighIn("weigh-mean", .mean), at: Self.planDate)
        }
        let context = ["note": "after breakfast"]
        let batches: [(samples: [QuantitySample], recordedAt: Date)] = [
            ([StoreFixture.weight(70, at: Self.minute(0), payload: 1)], Self.minute(0)),
            (
                [
                    StoreFixture.weight(70, at: Self.minute(0), payload: 1),
                    StoreFixture.weight(70.5, at: Self.minute(1), payload: 2),
                ], Self.minute(1)
            ),
            // The same recording time as the batch before (the origin rows stay apart).
            ([StoreFixture.weight(71, at: Self.minute(2), payload: 3)], Self.minute(1)),
            (
                [
                    {
                        var sample = StoreFixture.weight(71.5, at: Self.minute(3), payload: 4)
                        sample.metadata = context
                        return sample
                    }()
                ], Self.minute(3)
            ),
            // Out of order: the window is derived again.
            ([StoreFixture.weight(69, at: Self.minute(-30), payload: 5)], Self.minute(4)),
            ([StoreFixture.weight(72, at: Self.minute(5), payload: 6)], Self.minute(5)),
        ]
        for (index, batch) in batches.enumerated() {
            if index == 3 {
                for store in [kept, fresh] {
                    try await store.addTask(Self.weighIn("weigh-max", .max), at: Self.minute(2))
                }
            }
            if index == 5 {
                let id = batches[1].samples[1].id
                for store in [kept, fresh] { try await store.deleteSample(id: id, at: Self.minute(4)) }
            }
            try await kept.recordSamples(batch.samples, recordedAt: batch.recordedAt)
            let once = try CareStore(writer: freshQueue, bridgeZone: StoreFixture.berlin, logger: .quiet)
            try await once.recordSamples(batch.samples, recordedAt: batch.recordedAt)
        }
        #expect(kept.ingestSession.loads == 2)
        let tables = [
            "SELECT * FROM sampleRow ORDER BY type, start, idTail", "SELECT * FROM sampleOrigin ORDER BY id",
            "SELECT * FROM sampleBatch ORDER BY firstOrigin", "SELECT * FROM sampleSeries ORDER BY id",
            "SELECT * FROM device ORDER BY id", "SELECT * FROM sampleMetadata ORDER BY id",
            "SELECT * FROM sampleRoute ORDER BY id", "SELECT * FROM quantityType ORDER BY code",
            "SELECT sequence, channel, sampleID, enqueuedAt FROM outboxEntry ORDER BY sequence",
            // Outcome ids follow the task versions' (random) uuids: compared by task.
            "SELECT taskID, occurrence, eventStart, eventEnd, createdDate, updatedDate FROM outcome ORDER BY taskID",
            """
            SELECT o.taskID, v.position, v.value, v.unit, v.measuredAt, v.sampleID, v.recordedAt
            FROM outcomeValue AS v JOIN outcome AS o ON o.id = v.outcomeID ORDER BY o.taskID, v.position
            """,
        ]
        for sql in tables {
            let expected = try await fresh.databaseWriter.read { db in try Row.fetchAll(db, sql: sql).map(\.description)
            }
            let actual = try await kept.databaseWriter.read { db in try Row.fetchAll(db, sql: sql).map(\.description) }
            #expect(!expected.isEmpty, "\(sql)")
            #expect(actual == expected, "\(sql)")
        }
    }
}
