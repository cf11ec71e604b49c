import BridgeFoundation
import CareHub
import CareStore
import Foundation
import TestSupport
import Testing

/// Patients by name on the hub: the name a bridge sends with its batch, the id when a bridge (an older one) sends
/// none, the newest name when it changes, and a name for a patient the bridge is not enrolled for refused.
extension HubStoreTests {
    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func theOverviewShowsThePatientsNameTheBridgeSentAndTheIdWhenNoneCame() async throws {
        try await withStore { store in
            let token1 = try #require(try await store.enrol(bridge: "home-1", patients: ["ann", "ben"]))
            let home1 = try #require(try await store.bridge(token: token1))
            let token2 = try #require(try await store.enrol(bridge: "home-2", patients: ["cleo"]))
            let home2 = try #require(try await store.bridge(token: token2))
            func names() async throws -> [String: String] {
                let rows = try await store.overviewRows(patients: nil, since: .distantPast)
                return Dictionary(uniqueKeysWithValues: rows.patients.map { ($0.id, $0.name) })
            }
            #expect(try await names() == ["ann": "ann", "ben": "ben", "cleo": "cleo"], "nothing sent yet")

            _ = try await store.receive(
                SyncBatch(
                    messages: [sample("a", 1), sample("b", 2, patient: "ben")],
                    patientNames: ["ann": "Ann Weber"]
                ),
                from: home1
            )
            // An older bridge: no names in its batch at all.
            let old = try SyncBatch(bytes: Array(#"{"messages": [], "pending": 0}"#.utf8))
            #expect(old.patientNames.isEmpty)
            _ = try await store.receive(old, from: home2)
            #expect(try await names() == ["ann": "Ann Weber", "ben": "ben", "cleo": "cleo"])

            // Renamed on the bridge: the newest name shows; a batch without names keeps it.
            _ = try await store.receive(
                SyncBatch(messages: [sample("c", 3)], patientNames: ["ann": "Ann Weber-Lang"]),
                from: home1
            )
            _ = try await store.receive(SyncBatch(messages: [sample("d", 4)]), from: home1)
            #expect(try await names()["ann"] == "Ann Weber-Lang")

            // Naming a patient of another bridge is writing for them: refused, nothing of the batch stored.
            await #expect(throws: HubError.self) {
                try await store.receive(
                    SyncBatch(messages: [sample("e", 5)], patientNames: ["cleo": "Someone Else"]),
                    from: home1
                )
            }
            #expect(try await names()["cleo"] == "cleo")
            #expect(try await store.status().first { $0.name == "home-1" }?.samples == 4, "e was not stored")
        }
    }

    @Test func aBatchCarriesThePatientsNamesBothWaysAndRefusesANameThatIsNoText() throws {
        let batch = SyncBatch(messages: [], patientNames: ["ann": "Ann Weber"])
        #expect(try SyncBatch(bytes: Array(batch.serialized.utf8)) == batch)
        #expect(!SyncBatch(messages: []).serialized.contains("patients"), "an older hub sees what it always did")
        for bad in [#"{"messages": [], "patients": ["ann"]}"#, #"{"messages": [], "patients": {"ann": 7}}"#] {
            #expect(throws: HubError.self, "\(bad)") { try SyncBatch(bytes: Array(bad.utf8)) }
        }
    }
}
