import BridgeCore
import CarePlan
import CareStore
import Foundation
import Testing

/// Patients, plans and contacts in the store, and readings routed to the right person: device and slot owners,
/// the weight band of a shared scale, the unassigned inbox and filing from it.
@Suite struct PeopleRoutingTests {
    static let day = StoreFixture.berlinTime(2026, 11, 20, 7, 30)

    /// A reading from `device`, optionally from a user slot, with its own payload.
    static func reading(
        _ type: QuantityType,
        _ value: Double,
        _ unit: HealthUnit,
        device: String,
        slot: Int? = nil,
        at date: Date,
        payload: [UInt8]? = nil
    ) -> QuantitySample {
        QuantitySample(
            type: type,
            value: value,
            unit: unit,
            start: date,
            source: SampleSource(kind: .device, decoder: "test", device: DeviceIdentity(address: device)),
            receivedAt: date.addingTimeInterval(3),
            rawPayload: payload ?? [UInt8(Int(value * 10) & 0xFF), UInt8(slot ?? 0)],
            metadata: slot.map { ["userID": String($0)] } ?? [:]
        )
    }

    static func weight(
        _ kilograms: Double,
        device: String,
        slot: Int? = nil,
        at date: Date,
        payload: [UInt8]? = nil
    ) -> QuantitySample {
        reading(.bodyMass, kilograms, .kilogram, device: device, slot: slot, at: date, payload: payload)
    }

    /// A store with the given patients, each with a weigh-in task `weigh-<id>` (each value kept).
    static func store(patients ids: [String]) async throws -> StoreFixture {
        let fixture = try StoreFixture()
        for id in ids {
            try await fixture.store.savePatient(Patient(id: id, name: id.capitalized))
            var task = StoreFixture.weighIn(aggregation: .each)
            task.id = "weigh-\(id)"
            try await fixture.store.scoped(to: id).addTask(task)
        }
        return fixture
    }

    /// The body-mass values completing `task` on the test day.
    static func values(_ store: CareStore, task: String, patient: String) async throws -> [Double] {
        let events = try await store.scoped(to: patient).events(
            matching: EventQuery(from: StoreFixture.berlinTime(2026, 11, 20), to: StoreFixture.berlinTime(2026, 11, 21))
        )
        return events.filter { $0.key.taskID == task }.flatMap { $0.outcome?.values.map(\.value) ?? [] }
    }

    @Test func aStoreWithOnePatientTakesEveryReadingAsBefore() async throws {
        let fixture = try await Self.store(patients: ["alice"])
        let report = try await fixture.store.recordSamples([
            Self.weight(70.2, device: "AA:00:00:00:00:01", at: Self.day)
        ])
        #expect(report.inserted == 1 && report.unassigned == 0 && report.eventsUpdated == 1)
        #expect(try await Self.values(fixture.store, task: "weigh-alice", patient: "alice") == [70.2])
        #expect(try await fixture.store.resolvePatient(nil) == "alice")
        let stored = try await fixture.store.samples(matching: SampleQuery())
        #expect(stored.map(\.patientID) == ["alice"] && stored.map(\.routedBy) == ["only patient"])
    }

    @Test func aStoreWithoutPatientsAdoptsEverythingWhenTheFirstIsAdded() async throws {
        let fixture = try StoreFixture()
        try await fixture.store.addTask(StoreFixture.weighIn())
        try await fixture.store.recordSample(Self.weight(70.2, device: "AA:00:00:00:00:01", at: Self.day))
        #expect(try await fixture.store.patients().isEmpty)
        #expect(try await fixture.store.resolvePatient(nil) == nil)
        try await fixture.store.savePatient(Patient(id: "carol", name: "Carol"))
        #expect(try await fixture.store.scoped(to: "carol").tasks().map(\.task.id) == ["weigh-in"])
        #expect(try await fixture.store.samples(matching: SampleQuery(patientID: "carol")).count == 1)
        // Still completed: adoption changes no outcome.
        #expect(try await Self.values(fixture.store, task: "weigh-in", patient: "carol") == [70.2])
    }

    @Test func severalPatientsNeedAPatientNamedAndTheErrorListsThem() async throws {
        let fixture = try await Self.store(patients: ["alice", "bob"])
        await #expect(throws: CareStoreError.self) { try await fixture.store.resolvePatient(nil) }
        do {
            _ = try await fixture.store.resolvePatient(nil)
        } catch {
            #expect(error.code == .patientRequired && error.message.contains("alice, bob"))
        }
        do {
            _ = try await fixture.store.resolvePatient("zoe")
        } catch {
            #expect(error.code == .patientNotFound && error.message.contains("alice, bob"))
        }
        #expect(try await fixture.store.resolvePatient("bob") == "bob")
        #expect(try await fixture.store.scoped(to: "bob").tasks().map(\.task.id) == ["weigh-bob"])
    }

    /// A two-user scale: slots 1 and 2 assigned, slot 3 not; the slot-3 weigh-in waits in the inbox with every
    /// field and is then filed under bob with its original time.
    @Test func aTwoUserScaleRoutesBySlotAndKeepsAnUnownedSlotInTheInbox() async throws {
        let fixture = try await Self.store(patients: ["alice", "bob"])
        let store = fixture.store
        let scale = "C8:47:8C:00:00:10"
        try await store.assignDevice(scale, slot: 1, to: "alice")
        try await store.assignDevice(scale, slot: 2, to: "bob")
        let unowned = Self.weight(80.9, device: scale, slot: 3, at: Self.day.addingTimeInterval(600))
        let report = try await store.recordSamples([
            Self.weight(61.8, device: scale, slot: 1, at: Self.day),
            Self.weight(84.1, device: scale, slot: 2, at: Self.day.addingTimeInterval(300)),
            unowned,
        ])
        #expect(report.inserted == 3 && report.unassigned == 1 && report.unmatched == 0)
        #expect(try await Self.values(store, task: "weigh-alice", patient: "alice") == [61.8])
        #expect(try await Self.values(store, task: "weigh-bob", patient: "bob") == [84.1])

        let inbox = try await store.samples(matching: SampleQuery(unassignedOnly: true))
        #expect(inbox.count == 1)
        let waiting = try #require(inbox.first)
        #expect(waiting.sample == unowned)  // every field, device time and payload kept
        #expect(waiting.inboxReason?.contains("user slot 3") == true)
        #expect(try await store.unassignedCount() == 1)
        // The inbox is no patient's data.
        #expect(try await store.samples(matching: SampleQuery(patientID: "bob")).count == 1)

        let filed = try await store.assignSample(id: waiting.id, to: "bob")
        #expect(filed.samples == [waiting.id] && filed.eventsUpdated == 1)
        #expect(try await Self.values(store, task: "weigh-bob", patient: "bob") == [84.1, 80.9])
        let moved = try #require(try await store.sample(id: waiting.id))
        #expect(moved.patientID == "bob" && moved.inboxReason == nil && moved.sample.start == unowned.start)
        #expect(moved.routedBy?.hasPrefix("assigned") == true)
        #expect(try await store.unassignedCount() == 0)
        // Filing twice is refused, saying where it is.
        await #expect(throws: CareStoreError.self) { try await store.assignSample(id: waiting.id, to: "alice") }
        // Re-recording the same reading changes nothing.
        #expect(try await store.recordSamples([unowned]).duplicates == 1)
    }

    /// A shared scale without slots: two patients of different weights and a guest. The first weigh-ins have no
    /// reference and wait; once filed, later ones follow the weight band, the fat of a weigh-in goes with its
    /// weight, and the guest waits.
    @Test func aSharedScaleWithoutSlotsMatchesByWeightBandAndKeepsTheGuest() async throws {
        let fixture = try await Self.store(patients: ["alice", "bob"])
        let store = fixture.store
        let scale = "C8:47:8C:00:00:20"
        try await store.assignDevice(scale, to: "alice", shared: true)
        try await store.assignDevice(scale, to: "bob", shared: true)
        let first = Self.day.addingTimeInterval(-86_400)
        let firstReport = try await store.recordSamples([
            Self.weight(62.0, device: scale, at: first),
            Self.weight(84.0, device: scale, at: first.addingTimeInterval(600)),
        ])
        #expect(firstReport.unassigned == 2)
        let waiting = try await store.samples(matching: SampleQuery(unassignedOnly: true))
        #expect(waiting.allSatisfy { $0.inboxReason?.contains("no recent weight") == true })
        try await store.assignSample(id: waiting[0].id, to: "alice")
        try await store.assignSample(id: waiting[1].id, to: "bob")

        let payload: [UInt8] = [0x01, 0x7A]
        let report = try await store.recordSamples([
            Self.weight(62.6, device: scale, at: Self.day, payload: payload),
            Self.reading(.bodyFatPercentage, 27.5, .percent, device: scale, at: Self.day, payload: payload),
            Self.weight(84.9, device: scale, at: Self.day.addingTimeInterval(300)),
            Self.weight(73.0, device: scale, at: Self.day.addingTimeInterval(900)),  // a guest
        ])
        #expect(report.inserted == 4 && report.unassigned == 1)
        #expect(try await Self.values(store, task: "weigh-alice", patient: "alice") == [62.6])
        #expect(try await Self.values(store, task: "weigh-bob", patient: "bob") == [84.9])
        let fat = try await store.samples(matching: SampleQuery(types: [.bodyFatPercentage]))
        #expect(fat.map(\.patientID) == ["alice"])
        #expect(fat.first?.routedBy?.contains("weight band") == true)
        let guest = try await store.samples(matching: SampleQuery(unassignedOnly: true))
        #expect(guest.map(\.sample.value) == [73.0])
        #expect(guest.first?.inboxReason?.contains("outside every band") == true)
    }

    /// Two patients within a band of the reading: ambiguous, so the inbox, never a guess.
    @Test func aWeighInFittingTwoPatientsIsNotGuessed() async throws {
        let fixture = try await Self.store(patients: ["alice", "bob"])
        let store = fixture.store
        let scale = "C8:47:8C:00:00:21"
        try await store.assignDevice(scale, to: "alice", shared: true)
        try await store.assignDevice(scale, to: "bob", shared: true)
        let earlier = Self.day.addingTimeInterval(-86_400)
        try await store.scoped(to: "alice").recordSample(Self.weight(70.0, device: "manual-ish", at: earlier))
        try await store.scoped(to: "bob").recordSample(
            Self.weight(71.0, device: "manual-ish", at: earlier.addingTimeInterval(60))
        )
        let report = try await store.recordSamples([Self.weight(70.5, device: scale, at: Self.day)])
        #expect(report.unassigned == 1)
        let waiting = try await store.samples(matching: SampleQuery(unassignedOnly: true))
        #expect(waiting.first?.inboxReason?.contains("fits several patients") == true)
    }

    /// A ward: three patients, each with their own cuff; an unknown cuff's reading waits in the inbox.
    @Test func aWardOfThreePatientsWithTheirOwnCuffs() async throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let beds = ["bed-1", "bed-2", "bed-3"]
        for (index, bed) in beds.enumerated() {
            try await store.savePatient(
                Patient(
                    id: bed,
                    name: "Patient \(index + 1)",
                    identifiers: [PatientIdentifier(system: "urn:ward", value: "MRN-\(index + 1)", type: "MR")]
                )
            )
            let task = CareTask(
                id: "bp-\(bed)",
                title: "Blood pressure",
                kind: .assessment,
                schedule: .daily(
                    hour: 6,
                    start: WallClockTime(year: 2026, month: 11, day: 1),
                    duration: .seconds(6 * 3600),
                    timeZone: .fixed("Europe/Berlin")
                ),
                linkage: SampleLinkage(type: .bloodPressureSystolic, unit: .millimetreOfMercury, aggregation: .each)
            )
            try await store.scoped(to: bed).addTask(task)
            try await store.assignDevice("CUFF-\(index + 1)", to: bed)
        }
        var readings: [QuantitySample] = []
        for index in 0..<3 {
            readings.append(
                Self.reading(
                    .bloodPressureSystolic,
                    Double(120 + 10 * index),
                    .millimetreOfMercury,
                    device: "CUFF-\(index + 1)",
                    at: Self.day.addingTimeInterval(Double(index) * 60)
                )
            )
        }
        readings.append(
            Self.reading(.bloodPressureSystolic, 150, .millimetreOfMercury, device: "CUFF-9", at: Self.day)
        )
        let report = try await store.recordSamples(readings)
        #expect(report.inserted == 4 && report.unassigned == 1 && report.eventsUpdated == 3)
        for (index, bed) in beds.enumerated() {
            #expect(try await Self.values(store, task: "bp-\(bed)", patient: bed) == [Double(120 + 10 * index)])
            await #expect(try store.scoped(to: bed).samples(matching: SampleQuery()).count == 1)
        }
        let waiting = try await store.samples(matching: SampleQuery(unassignedOnly: true))
        #expect(waiting.first?.inboxReason?.contains("CUFF-9 has no owner") == true)
        // Re-assigning a cuff says whose it was.
        #expect(try await store.assignDevice("cuff-1", to: "bed-2") == "bed-1")
    }

    @Test func patientsAndContactsAreVersionedAndSharingIsAudited() async throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let plan = try CarePlanDocument.parse(
            Data(
                """
                {"patient": {"id": "alice", "name": "Alice Example", "birthday": "1948-02-29", "sex": "female",
                             "allergies": ["penicillin"],
                             "identifiers": [{"system": "urn:oid:1.2.3", "value": "MRN-7", "type": "MR"}]},
                 "plan": {"id": "alice-home", "title": "Home monitoring"},
                 "contacts": [{"id": "dr-lee", "name": "Dr. Lee", "category": "careTeam", "role": "physician",
                               "phones": ["+49 30 1234"], "receives": ["reports", "alerts"]},
                              {"id": "ben", "name": "Ben", "category": "personal", "role": "son"}],
                 "tasks": []}
                """.utf8
            ),
            path: "alice.json",
            bridgeZone: StoreFixture.berlin
        )
        try await store.applyPlan(plan)
        #expect(try await store.patients().map(\.id) == ["alice"])
        #expect(try await store.patient(id: "alice")?.identifiers.first?.value == "MRN-7")
        #expect(try await store.plans(patientID: "alice").map(\.id) == ["alice-home"])
        #expect(try await store.contacts(patientID: "alice").map(\.id).sorted() == ["ben", "dr-lee"])
        // Same file again: nothing new; a changed name: a new version, the old one kept.
        try await store.applyPlan(plan)
        #expect(try await store.patientVersions(id: "alice").count == 1)
        #expect(try await store.savePatient(Patient(id: "alice", name: "Alice Q. Example")) == .updated)
        let versions = try await store.patientVersions(id: "alice")
        #expect(versions.map(\.patient.name) == ["Alice Example", "Alice Q. Example"])

        let share = try await store.recordShare(
            contactID: "dr-lee",
            what: "report",
            channel: "email",
            detail: "November"
        )
        #expect(share.patientID == "alice")
        #expect(try await store.shares().map(\.contactID) == ["dr-lee"])
        await #expect(throws: CareStoreError.self) {
            try await store.recordShare(contactID: "nobody", what: "report", channel: "email")
        }
    }

    @Test func aBirthdayInTheFutureOrBeforeAnyoneAliveIsRefused() async throws {
        let fixture = try StoreFixture()
        let now = StoreFixture.berlinTime(2026, 11, 20, 12)
        for birthday in ["2999-01-01", "2026-11-22", "1800-06-01", "1869-12-31"] {
            let error = try await #require(throws: CareStoreError.self) {
                try await fixture.store.savePatient(Patient(id: "p", name: "P", birthday: birthday), at: now)
            }
            #expect(error.code == .invalidPatient)
            let expected = birthday.hasPrefix("1") ? "is before 1870" : "is in the future (today is 2026-11-2"
            #expect(error.message.contains(expected), "\(birthday): \(error.message)")
        }
        for birthday in ["1870-01-01", "1948-02-29", "2026-11-20"] {
            try await fixture.store.savePatient(
                Patient(id: "p\(birthday.prefix(4))", name: "P", birthday: birthday),
                at: now
            )
        }
        #expect(try await fixture.store.patient(id: "p1948")?.birthday == "1948-02-29")
        // A plan file's patient is checked when it is read, with the path in the error.
        #expect(throws: (any Error).self) {
            try CarePlanDocument.parse(
                Data(#"{"patient": {"id": "a", "name": "A", "birthday": "1800-01-01"}, "tasks": []}"#.utf8),
                path: "a.json",
                bridgeZone: StoreFixture.berlin
            )
        }
    }

    /// Two beds weighed 72.5 kg in the same minute and typed in one after the other: each bed keeps its reading
    /// (the second is not "already recorded"), the first keeps the id a reading typed in always had, and typing
    /// either again changes nothing.
    @Test func theSameReadingTypedInForTwoPatientsAtTheSameTimeIsEachOnesOwn() async throws {
        let fixture = try await Self.store(patients: ["bed-1", "bed-2"])
        let typed = QuantitySample(
            type: .bodyMass,
            value: 72.5,
            unit: .kilogram,
            start: Self.day,
            source: .manual,
            receivedAt: Self.day.addingTimeInterval(60)
        )
        let first = try await fixture.store.scoped(to: "bed-1").recordSamples([typed])
        let second = try await fixture.store.scoped(to: "bed-2").recordSamples([typed])
        #expect(first.inserted == 1 && first.storedUnder.isEmpty && first.eventsUpdated == 1)
        #expect(second.inserted == 1 && second.duplicates == 0 && second.eventsUpdated == 1)
        let bedTwos = try #require(second.storedUnder[typed.id])
        #expect(bedTwos != typed.id && second.stored(typed).id == bedTwos)
        #expect(bedTwos == typed.typedIn(forPatient: "bed-2").id)

        #expect(try await Self.values(fixture.store, task: "weigh-bed-1", patient: "bed-1") == [72.5])
        #expect(try await Self.values(fixture.store, task: "weigh-bed-2", patient: "bed-2") == [72.5])
        let stored = try await fixture.store.samples(matching: SampleQuery())
        #expect(
            Set(stored.map { "\($0.patientID ?? "-") \($0.id)" })
                == ["bed-1 \(typed.id)", "bed-2 \(bedTwos)"]
        )

        for bed in ["bed-1", "bed-2", "bed-2"] {
            let again = try await fixture.store.scoped(to: bed).recordSamples([typed])
            #expect(again.inserted == 0 && again.duplicates == 1, "\(bed)")
        }
        #expect(try await fixture.store.samples(matching: SampleQuery()).count == 2)
    }
}
