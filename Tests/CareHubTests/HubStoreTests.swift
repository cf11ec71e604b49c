import BridgeFoundation
import CareHub
import Foundation
import Logging
import PostgresNIO
import TestSupport
import Testing

/// The hub's store on a real PostgreSQL: migrations once, enrolment with only a token's hash kept, batches stored
/// once by id whatever kinds they mix, and a bridge refused for a patient it is not enrolled for.
@Suite(.serialized) struct HubStoreTests {
    let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory("carebridge-hubstore-")
    }

    /// Runs `body` with a migrated store on a fresh PostgreSQL, stopped afterwards.
    func withStore(_ body: @Sendable (HubStore) async throws -> Void) async throws {
        try await HubFixture.withStore(scratch: scratch, body)
    }

    func sample(_ id: String, _ sequence: Int64, patient: String = "ann") -> SyncMessage {
        SyncMessage(
            kind: .sample,
            id: id,
            sequence: sequence,
            patient: patient,
            body: .object(["id": .string(id), "type": .string("bodyMass"), "value": .double(70)])
        )
    }

    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func aBatchSentTwiceIsStoredOnceAndAnsweredTheSame() async throws {
        try await withStore { store in
            let token = try #require(try await store.enrol(bridge: "home-1", patients: ["ann"]))
            let bridge = try #require(try await store.bridge(token: token))
            #expect(bridge.patients == ["ann"])
            let batch = SyncBatch(messages: [
                sample("a", 1), sample("b", 2),
                SyncMessage(kind: .outcome, id: "o-1", sequence: 7, patient: "ann", body: .object([:])),
                SyncMessage(kind: .alert, id: "al-1/raised", sequence: 3, patient: "ann", body: .object([:])),
            ])
            #expect(try await store.status().first?.backlog == nil, "never said")
            let first = try await store.receive(batch, from: bridge)
            var told = batch
            told.pending = 12
            let second = try await store.receive(told, from: bridge)
            #expect(try await store.status().first?.backlog == 12, "the backlog the bridge reported")
            #expect(first == SyncReceipt(received: 4, lastSequence: 7))
            #expect(second == first)
            let status = try #require(try await store.status().first)
            #expect((status.samples, status.outcomes, status.alerts) == (2, 1, 1))
            #expect(status.lastSampleSequence == 2)
            #expect(status.lastContact != nil)
        }
    }

    func outcome(_ id: String, _ sequence: Int64, state: String) -> SyncMessage {
        SyncMessage(
            kind: .outcome,
            id: id,
            sequence: sequence,
            patient: "ann",
            body: .object(["state": .string(state)])
        )
    }

    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func anOutcomesNewestStateWinsByItsSequenceAndEveryStateStaysOnRecord() async throws {
        try await withStore { store in
            let token = try #require(try await store.enrol(bridge: "home-1", patients: ["ann"]))
            let bridge = try #require(try await store.bridge(token: token))
            _ = try await store.receive(SyncBatch(messages: [outcome("t/1", 3, state: "recorded")]), from: bridge)
            let undone = SyncBatch(messages: [outcome("t/1", 5, state: "undone"), outcome("t/2", 6, state: "recorded")])
            _ = try await store.receive(undone, from: bridge)
            _ = try await store.receive(undone, from: bridge)
            // An older state arriving late (or one batch carrying two states of an event) does not go back.
            _ = try await store.receive(
                SyncBatch(messages: [outcome("t/1", 4, state: "recorded"), outcome("t/2", 2, state: "removed")]),
                from: bridge
            )
            var held: [String] = []
            let rows = try await store.client.query("SELECT id, body->>'state' FROM hub_outcome ORDER BY id")
            for try await (id, state) in rows.decode((String, String).self) { held.append("\(id) \(state)") }
            #expect(held == ["t/1 undone", "t/2 recorded"])
            var changes: [String] = []
            let history = try await store.client.query(
                "SELECT id, bridge_sequence, body->>'state' FROM hub_outcome_change ORDER BY id, bridge_sequence"
            )
            for try await (id, sequence, state) in history.decode((String, Int64, String).self) {
                changes.append("\(id) \(sequence) \(state)")
            }
            #expect(changes == ["t/1 3 recorded", "t/1 4 recorded", "t/1 5 undone", "t/2 2 removed", "t/2 6 recorded"])
            #expect(try await store.status().first?.outcomes == 2)
        }
    }

    func retraction(_ id: String, _ sequence: Int64) -> SyncMessage {
        SyncMessage(
            kind: .retraction,
            id: id,
            sequence: sequence,
            patient: "ann",
            body: .object(["deletedAt": .string("2026-11-20T09:00:00+01:00")])
        )
    }

    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func aRetractionMarksItsSampleOnceAndDeletesNothing() async throws {
        try await withStore { store in
            let token = try #require(try await store.enrol(bridge: "home-1", patients: ["ann"]))
            let bridge = try #require(try await store.bridge(token: token))
            _ = try await store.receive(SyncBatch(messages: [sample("a", 1), sample("b", 2)]), from: bridge)
            let retracted = SyncBatch(messages: [retraction("a", 3)])
            let first = try await store.receive(retracted, from: bridge)
            #expect(try await store.receive(retracted, from: bridge) == first, "sent again: the same answer")
            // A retraction of a sample the hub never had is kept, and marks the sample should it arrive later.
            _ = try await store.receive(SyncBatch(messages: [retraction("c", 4)]), from: bridge)
            _ = try await store.receive(SyncBatch(messages: [sample("c", 5)]), from: bridge)
            var marked: [String] = []
            let rows = try await store.client.query(
                "SELECT id, retracted_at IS NOT NULL FROM hub_sample ORDER BY id"
            )
            for try await (id, isRetracted) in rows.decode((String, Bool).self) {
                marked.append("\(id) \(isRetracted ? "retracted" : "live")")
            }
            #expect(marked == ["a retracted", "b live", "c retracted"], "every sample kept, the retracted marked")
            var retractions = 0
            for try await count in try await store.client.query("SELECT count(*) FROM hub_retraction").decode(
                Int64.self
            ) {
                retractions = Int(count)
            }
            #expect(retractions == 2, "each retraction once")
            let status = try #require(try await store.status().first)
            #expect((status.samples, status.retracted) == (3, 2))
        }
    }

    func device(_ key: String, at sequence: Int64, patient: String = "ann", battery: Int) -> SyncMessage {
        SyncMessage(
            kind: .device,
            id: key,
            sequence: sequence,
            patient: patient,
            body: HubDevice.body(
                identity: ["address": key, "model": "WS-100", "serial": "SN0042", "firmware": "1.4.2"],
                battery: (battery, "2026-11-20T07:00:00+01:00"),
                lastSeen: "2026-11-20T07:58:01+01:00"
            )
        )
    }

    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func aDevicesNewestFactsReplaceTheHeldOnesPerPatient() async throws {
        try await withStore { store in
            let token = try #require(try await store.enrol(bridge: "home-1", patients: ["ann", "ben"]))
            let bridge = try #require(try await store.bridge(token: token))
            let scale = "02:00:00:00:00:01"
            let receipt = try await store.receive(
                SyncBatch(messages: [sample("a", 1), device(scale, at: 1_000, battery: 80)]),
                from: bridge
            )
            #expect(receipt.lastSequence == 1, "the outbox's sequence, not the facts' time")
            _ = try await store.receive(SyncBatch(messages: [device(scale, at: 3_000, battery: 70)]), from: bridge)
            // Facts read earlier arriving late do not go back; the same device shared with ben is his own row.
            _ = try await store.receive(
                SyncBatch(messages: [
                    device(scale, at: 2_000, battery: 90), device(scale, at: 2_000, patient: "ben", battery: 60),
                ]),
                from: bridge
            )
            let devices = try await store.devices()
            #expect(devices.map(\.patient) == ["ann", "ben"])
            #expect(devices.map(\.battery) == [70, 60])
            let ann = try #require(devices.first)
            #expect(
                (ann.bridge, ann.key, ann.model, ann.serial, ann.firmware) == (
                    "home-1", scale, "WS-100", "SN0042", "1.4.2"
                )
            )
            #expect(ann.lastSeen == "2026-11-20T07:58:01+01:00")
            #expect(try await store.status().first?.devices == 2)
        }
    }

    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func aBridgeWritingForAnotherPatientIsRefusedAndNothingOfTheBatchIsStored() async throws {
        try await withStore { store in
            let token = try #require(try await store.enrol(bridge: "home-1", patients: ["ann"]))
            let bridge = try #require(try await store.bridge(token: token))
            do throws(HubError) {
                _ = try await store.receive(
                    SyncBatch(messages: [sample("a", 1), sample("b", 2, patient: "ben")]),
                    from: bridge
                )
                Issue.record("a batch with ben's reading was taken from a bridge enrolled for ann")
            } catch {
                #expect(error.code == .forbidden)
                #expect(
                    error.message == "bridge home-1 is not enrolled for patient ben; nothing of the batch was stored"
                )
            }
            #expect(try await store.status().first?.samples == 0, "not even ann's reading")
        }
    }

    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func onlyTheTokensHashIsKeptAndANewTokenReplacesTheOld() async throws {
        try await withStore { store in
            let token = try #require(try await store.enrol(bridge: "home-1", patients: ["ann"]))
            #expect(
                try await store.enrol(bridge: "home-1", patients: ["ben"]) == nil,
                "enrolling again keeps the token"
            )
            #expect(try await store.bridge(token: token)?.patients == ["ann", "ben"])
            var stored: [String] = []
            for try await hash in try await store.client.query("SELECT token_hash FROM hub_bridge").decode(String.self)
            {
                stored.append(hash)
            }
            #expect(stored == [token.hash])
            #expect(!stored.contains(token.text))
            let renewed = try #require(try await store.enrol(bridge: "home-1", patients: [], newToken: true))
            #expect(try await store.bridge(token: token) == nil, "the old token stops working")
            #expect(try await store.bridge(token: renewed)?.name == "home-1")
        }
    }
}

/// The hub's database address and password sources (no database needed).
@Suite struct HubDatabaseTests {
    @Test func aPasswordInTheAddressIsRefusedWithoutShowingIt() throws {
        do throws(HubError) {
            _ = try HubDatabase(url: "postgres://hub:s3cret@db.example/hub")
            Issue.record("a password in the address was taken")
        } catch {
            #expect(error.code == .configuration)
            #expect(!error.description.contains("s3cret"))
        }
    }

    @Test func thePasswordComesFromTheMatchingLineOfAPasswordFile() throws {
        let scratch = try ScratchDirectory("carebridge-pgpass-")
        let file = scratch.path("pgpass")
        try Data(
            """
            # comment
            other.example:5432:hub:hub:wrong
            db.example:*:hub:hub:pa\\:ss
            """.utf8
        ).write(to: URL(fileURLWithPath: file))
        let database = try HubDatabase(url: "postgres://hub@db.example/hub", environment: ["PGPASSFILE": file])
        #expect(database.configuration.password == "pa:ss")
        #expect(database.description == "postgres://hub@db.example:5432/hub")
        let none = try HubDatabase(url: "postgres://hub@elsewhere/hub", environment: ["PGPASSFILE": file])
        #expect(none.configuration.password == nil)
    }

    @Test func aMalformedBatchSaysWhichMessageAndField() {
        #expect(throws: HubError.self) { try SyncBatch(bytes: Array(#"{"messages": [{"kind": "sample"}]}"#.utf8)) }
        do throws(HubError) {
            _ = try SyncBatch(
                bytes: Array(
                    #"{"messages": [{"kind": "sample", "id": "a", "sequence": -1, "patient": "p", "body": {}}]}"#.utf8
                )
            )
            Issue.record("a negative sequence was taken")
        } catch {
            #expect(error.message == "message 0 has no sequence (a whole number, 0 or more)")
        }
    }
}
