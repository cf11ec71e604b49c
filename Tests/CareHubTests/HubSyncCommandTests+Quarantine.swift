import BridgeCore
import CareHub
import CareStore
import Foundation
import Logging
import TestSupport
import Testing

extension HubSyncCommandTests {
    /// Quarantined readings go up over real TLS through the real binary and are held apart at the hub (listed,
    /// never in the care team's overview); the care team's release and rejection come down and are applied once,
    /// through a lost answer; a reading the bridge released itself first keeps the bridge's decision and the
    /// hub's is refused, saying so. The hub takes one decision per reading.
    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func quarantinedReadingsGoUpHeldApartAndTheHubsDecisionsComeDownOnce() async throws {
        let (postgres, passwordFile, database) = try await startPostgres()
        let authority = try TestCertificateAuthority()
        let server = try authority.issueServer(named: "hub", ipAddresses: ["127.0.0.1"])
        func file(_ name: String) -> String { directory.appendingPathComponent(name).path }
        let store = file("home-1.sqlite")
        let zone = TimeZone(identifier: "Europe/Berlin")!

        let added = try await carebridge(["patients", "add", "ann", "--name", "Ann", "--store", store])
        #expect(added.status == 0, "\(added)")
        try await enrol("home-1", patient: "ann", database: database, tokenFile: file("home-1.token"))

        // What the bridge's pipeline keeps of a scale weighing a parcel and a pulse read through a loose strap.
        func reading(
            _ type: QuantityType,
            _ value: Double,
            _ unit: String,
            minute: Int,
            quarantine: String?
        ) throws
            -> QuantitySample
        {
            QuantitySample(
                type: type,
                value: value,
                unit: HealthUnit(rawValue: unit),
                start: try Timestamp.parse(String(format: "2026-11-20T07:%02d", minute), in: zone),
                source: SampleSource(kind: .device),
                quarantineReason: quarantine
            )
        }
        let usable = try reading(.bodyMass, 71.0, "kg", minute: 0, quarantine: nil)
        let parcel = try reading(.bodyMass, 250.0, "kg", minute: 1, quarantine: "250 kg is not plausible")
        let toddler = try reading(.bodyMass, 12.0, "kg", minute: 2, quarantine: "12 kg is not plausible")
        let strap = try reading(.heartRate, 310, "/min", minute: 3, quarantine: "310 /min is not plausible")
        do {
            let bridge = try CareStore(path: store, bridgeZone: zone, logger: Logger(label: "test"))
            try await bridge.scoped(to: "ann").recordSamples([usable, parcel, toddler, strap])
        }
        func id(_ sample: QuantitySample) -> String { sample.id.uuidString.lowercased() }

        let hub = try await ListeningProcess.start(
            ["hub", "serve"] + database + [
                "--listen", "127.0.0.1:0", "--tls-cert", server.certificate, "--tls-key", server.key,
            ],
            prefix: "hub listening on ",
            directory: directory
        )
        func push() async throws -> [String: Any] {
            let run = try await carebridge([
                "sync", "push", "--hub", hub.url, "--ca-file", authority.certificate, "--token-file",
                file("home-1.token"), "--timeout", "60", "--store", store, "--json",
            ])
            #expect(run.status == 0, "\(run)")
            return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        }
        func listed(_ extra: [String] = []) async throws -> [[String: Any]] {
            let run = try await carebridge(["hub", "samples", "list", "--json"] + extra + database)
            #expect(run.status == 0, "\(run)")
            return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        }
        func overview() async throws -> [String] {
            try await HubDatabase(url: postgres.url, passwordFile: passwordFile).withClient(
                logger: Logger(label: "test")
            ) { client in
                try await HubStore(client: client, logger: Logger(label: "test"))
                    .overviewRows(patients: nil, since: .distantPast).readings.map(\.sampleID).sorted()
            }
        }
        func decide(
            _ verdict: String,
            _ sample: String,
            reason: String = "checked by phone"
        ) async throws
            -> CarebridgeRun
        {
            try await carebridge(
                [
                    "hub", "samples", verdict, "--bridge", "home-1", "--patient", "ann", sample, "--reason", reason,
                    "--by", "Nurse Kim",
                ] + database
            )
        }

        // Up: the three quarantined readings are held apart, with why; the overview shows the usable one only.
        #expect(try await push()["sent"] as? Int == 4)
        let held = try await listed()
        #expect(held.map { $0["id"] as? String } == [parcel, toddler, strap].map(id), "\(held)")
        #expect(held.allSatisfy { $0["state"] as? String == "held" }, "\(held)")
        #expect(
            held.map { ($0["sample"] as? [String: Any])?["quarantine"] as? String }
                == ["250 kg is not plausible", "12 kg is not plausible", "310 /min is not plausible"]
        )
        #expect(try await overview() == [id(usable)])

        // The care team decides at the hub: once per reading, only on readings the bridge sent in quarantine.
        #expect(try await decide("release", id(parcel), reason: "a new scale, weighed twice").status == 0)
        #expect(try await decide("reject", id(toddler), reason: "her grandson on the scale").status == 0)
        let twice = try await decide("reject", id(parcel))
        #expect(twice.status == 64 && twice.stderr.contains("is decided already: release by Nurse Kim"), "\(twice)")
        let unknown = try await decide("release", UUID().uuidString)
        #expect(unknown.status == 64 && unknown.stderr.contains("has sent no quarantined reading"), "\(unknown)")
        #expect(try await listed().map { $0["state"] as? String } == ["release sent", "reject sent", "held"])
        // On the bridge, someone releases the strap reading first; the hub, not knowing yet, rejects it.
        let local = try await carebridge(["samples", "release", id(strap), "--reason", "a runner", "--store", store])
        #expect(local.status == 0, "\(local)")
        #expect(try await decide("reject", id(strap)).status == 0)

        // Down, with the first answer lost: the bridge's store as it was before the push comes back, and the
        // push again applies each decision once.
        let before = try copyStore(store, to: "home-1-before")
        let first = try await push()
        #expect(first["changesApplied"] as? Int == 2 && first["changesRefused"] as? Int == 1, "\(first)")
        try restoreStore(before, to: store)
        let again = try await push()
        #expect(again["changesApplied"] as? Int == 2 && again["changesRefused"] as? Int == 1, "\(again)")
        let last = try await push()
        #expect(last["changesApplied"] as? Int == 0 && last["changesRefused"] as? Int == 0, "\(last)")

        // The bridge: the parcel released by Nurse Kim and the strap by its own command line, once each; the
        // toddler deleted by Nurse Kim with her reason.
        let bridge = try CareStore(path: store, bridgeZone: zone, logger: Logger(label: "test"))
        #expect(try await bridge.quarantinedCount() == 0)
        let live = try await bridge.samples(matching: SampleQuery()).map { $0.id.uuidString.lowercased() }.sorted()
        #expect(live == [usable, parcel, strap].map(id).sorted())
        let reviews = try await bridge.sampleReviews(of: [parcel.id, toddler.id, strap.id])
        #expect(reviews[parcel.id]?.map { "\($0.action) \($0.author ?? "-")" } == ["release Nurse Kim"])
        #expect(reviews[toddler.id]?.map { "\($0.action) \($0.reason ?? "-")" } == ["delete her grandson on the scale"])
        #expect(reviews[strap.id]?.map { "\($0.action) \($0.author ?? "-")" } == ["release -"])

        // The hub: where each decision stands, the refusal with the bridge's reason; the record has the released.
        let decided = try await listed(["--all"])
        #expect(decided.map { $0["state"] as? String } == ["released", "rejected", "refused"], "\(decided)")
        let refusal = decided.last?["refused"] as? String ?? ""
        #expect(refusal.contains("was released on the bridge") && refusal.contains("the bridge's decision stands"))
        #expect(try await listed().isEmpty, "nothing waits for a decision")
        #expect(try await overview() == [usable, parcel, strap].map(id).sorted())
        let late = try await decide("release", id(toddler))
        #expect(late.status == 64 && late.stderr.contains("deleted on bridge home-1"), "\(late)")
        _ = try await hub.stop()
    }
}
