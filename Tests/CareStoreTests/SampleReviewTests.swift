import BridgeCore
import CarePlan
import CareStore
import Foundation
import Testing

/// The review list: who released, deleted or filed a reading, written with the change; and a store scoped to a
/// patient never releases or deletes another patient's reading.
@Suite struct SampleReviewTests {
    static let day = StoreFixture.berlinTime(2026, 11, 20, 7, 30)

    /// A quarantined weigh-in of `patient` (distinct payloads per patient).
    static func quarantined(_ fixture: StoreFixture, patient: String, payload: UInt8) async throws -> UUID {
        var sample = StoreFixture.weight(700, at: day, payload: payload)
        sample.quarantineReason = "implausible body mass 700 kg"
        try await fixture.store.scoped(to: patient).recordSample(sample)
        return sample.id
    }

    @Test func aScopedStoreRefusesAnotherPatientsReadingAndRecordsWhoReviewedItsOwn() async throws {
        let fixture = try await PeopleRoutingTests.store(patients: ["alice", "bob"])
        let alices = try await Self.quarantined(fixture, patient: "alice", payload: 1)
        let bobs = try await Self.quarantined(fixture, patient: "bob", payload: 2)
        let alice = fixture.store.scoped(to: "alice")
        #expect(try await alice.releaseSample(id: bobs, reason: "fine", by: "nurse") == nil)
        #expect(try await alice.deleteSample(id: bobs, reason: "wrong", by: "nurse") == false)
        #expect(try await fixture.store.sample(id: bobs)?.sample.isQuarantined == true)
        #expect(try await fixture.store.sampleReviews(of: [bobs]).isEmpty, "nothing done, nothing recorded")

        let at = Self.day.addingTimeInterval(3600)
        #expect(
            try await alice.releaseSample(id: alices, reason: "a suitcase on the scale", at: at, by: "nurse") != nil
        )
        #expect(
            try await alice.deleteSample(id: alices, at: at.addingTimeInterval(60), reason: "no, a typo", by: "admin")
        )
        let reviews = try #require(try await fixture.store.sampleReviews(of: [alices, bobs])[alices])
        #expect(reviews.map(\.action) == [.release, .delete])
        #expect(reviews.map(\.author) == ["nurse", "admin"])
        #expect(reviews.map(\.reason) == ["a suitcase on the scale", "no, a typo"])
        #expect(reviews.first?.reviewedAt == at)
    }

    @Test func theCommandLineReviewsWithoutAnAuthorAndFilingRecordsThePatient() async throws {
        let fixture = try await PeopleRoutingTests.store(patients: ["alice", "bob"])
        // A scale nobody registered, in a store of two patients: the inbox.
        let inbox = StoreFixture.weight(71.5, at: Self.day, payload: 3)
        #expect(try await fixture.store.recordSample(inbox).unassigned == 1)
        try await fixture.store.assignSample(id: inbox.id, to: "bob", by: "carol")
        #expect(try await fixture.store.deleteSample(id: inbox.id))
        let reviews = try #require(try await fixture.store.sampleReviews(of: [inbox.id])[inbox.id])
        #expect(reviews.map(\.action) == [.assign, .delete])
        #expect(reviews.map(\.author) == ["carol", nil])
        #expect(reviews.first?.reason == "bob")
    }
}
