import BridgeFoundation
import CareHub
import TestSupport
import Testing

extension HubStoreTests {
    /// The plan files a batch's answer carries, as (sequence, patient, file).
    func plans(_ receipt: SyncReceipt) -> [(Int64, String, String)] {
        receipt.changes.filter { $0.kind == .plan }.map {
            ($0.sequence, $0.patient, $0.body.objectValue?["file"]?.stringValue ?? "")
        }
    }

    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func aBridgeEnrolledForAPatientLaterGetsThePlansItsCursorIsPastOnce() async throws {
        try await withStore { store in
            let first = try #require(try await store.enrol(bridge: "home-1", patients: ["ann"]))
            let other = try #require(try await store.enrol(bridge: "home-2", patients: ["ben"]))
            _ = try await store.publishPlan(patient: "ben", file: "ben v1", by: "nurse")
            _ = try await store.publishPlan(patient: "ann", file: "ann v1", by: "nurse")
            _ = try await store.publishPlan(patient: "ben", file: "ben v2", by: "nurse")
            var home1 = try #require(try await store.bridge(token: first))

            // home-1 deals with ann's plan: its cursor (3) is past both of ben's.
            let synced = try await store.receive(SyncBatch(messages: [], changesAfter: 0), from: home1)
            #expect(plans(synced).map(\.2) == ["ann v1"])
            _ = try await store.receive(SyncBatch(messages: [], changesAfter: 3), from: home1)

            // Enrolled for ben now: ben's plans come down, in their order, though the cursor is past them.
            #expect(try await store.enrol(bridge: "home-1", patients: ["ben"]) == nil)
            home1 = try #require(try await store.bridge(token: first))
            let caughtUp = try await store.receive(SyncBatch(messages: [], changesAfter: 3), from: home1)
            #expect(plans(caughtUp).map(\.1) == ["ben", "ben"])
            #expect(plans(caughtUp).map(\.2) == ["ben v1", "ben v2"])
            #expect(plans(caughtUp).allSatisfy { $0.0 > 3 }, "new sequences, for home-1 alone")

            // Enrolling again for ben queues nothing more; home-2, enrolled for ben from the start, gets each once.
            _ = try await store.enrol(bridge: "home-1", patients: ["ben"])
            let after = try #require(caughtUp.changes.last?.sequence)
            let nothing = try await store.receive(SyncBatch(messages: [], changesAfter: after), from: home1)
            #expect(nothing.changes.isEmpty)
            let home2 = try #require(try await store.bridge(token: other))
            let own = try await store.receive(SyncBatch(messages: [], changesAfter: 0), from: home2)
            #expect(plans(own).map(\.2) == ["ben v1", "ben v2"], "the copies are home-1's alone")

            // A bridge enrolled for a patient before it ever synced gets the plans once, not twice.
            let fresh = try #require(try await store.enrol(bridge: "home-3", patients: ["ann"]))
            _ = try await store.enrol(bridge: "home-3", patients: ["ben"])
            let home3 = try #require(try await store.bridge(token: fresh))
            let firstSync = try await store.receive(SyncBatch(messages: [], changesAfter: 0), from: home3)
            #expect(plans(firstSync).map(\.2) == ["ben v1", "ann v1", "ben v2"])
        }
    }
}
