import CareHub
import Foundation
import TestSupport
import Testing

extension HubSyncCommandTests {
    /// The bridge's devices and a deleted reading reach the hub: a scale's model, serial, firmware, battery and
    /// last reading show in `hub status`; deleting a reading on the bridge marks it retracted at the hub, once,
    /// and the hub still holds it.
    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func devicesAndRetractionsReachTheHubAndARetractedReadingStaysOnRecord() async throws {
        let (postgres, passwordFile, database) = try await startPostgres()
        let store = directory.appendingPathComponent("home-1.sqlite").path
        let tokenFile = directory.appendingPathComponent("home-1.token").path
        func bridge(_ arguments: [String]) async throws -> CarebridgeRun {
            try await succeeding(arguments + ["--store", store])
        }
        _ = try await bridge(["patients", "add", "ann", "--name", "Ann"])
        _ = try await bridge([
            "replay", PackageRoot.url.appendingPathComponent("Recordings/weight-scale-morning-weigh-in.jsonl").path,
        ])
        _ = try await bridge(["ingest", "bodyMass", "71.5", "kg", "--at", "2026-11-20T08:30", "--force"])
        try await enrol("home-1", patient: "ann", database: database, tokenFile: tokenFile)
        let hub = try await serveHub(database)
        func push() async throws -> CarebridgeRun {
            try await bridge(["sync", "push", "--hub", hub.url, "--token-file", tokenFile, "--timeout", "60", "--json"])
        }
        func status() async throws -> [String: Any] {
            let run = try await carebridge(["hub", "status", "--json"] + database)
            #expect(run.status == 0, "\(run)")
            let list = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]]
            return try #require(list?.first, "\(run.stdout)")
        }
        _ = try await push()
        let before = try await status()
        let devices = try #require(before["devices"] as? [[String: Any]], "\(before)")
        #expect(devices.count == 1, "\(devices)")
        let scale = try #require(devices.first)
        #expect(scale["patient"] as? String == "ann")
        #expect(scale["address"] as? String == "02:00:00:00:00:01")
        #expect(scale["model"] as? String == "WS-100" && scale["serial"] as? String == "SN0042", "\(scale)")
        #expect(scale["firmware"] as? String == "1.4.2" && scale["battery"] as? Int == 90, "\(scale)")
        #expect((scale["lastSeen"] as? String)?.hasPrefix("2026-11-20T") == true, "\(scale)")
        #expect(before["retracted"] as? Int == 0)
        let held = before["samples"] as? Int ?? 0
        #expect(held > 1, "\(before)")

        // The hand-typed weight deleted on the bridge: its retraction goes up once, the reading stays at the hub.
        let samples = try await bridge(["samples", "--json", "--type", "bodyMass"])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(samples.stdout.utf8)) as? [[String: Any]])
        let typed = try #require(list.first { ($0["value"] as? Double) == 71.5 }?["id"] as? String, "\(list)")
        _ = try await bridge(["samples", "delete", typed])
        let retracted = try await push()
        #expect(retracted.stdout.contains(#""sent": 1"#), "\(retracted)")
        _ = try await push()
        let after = try await status()
        #expect(after["samples"] as? Int == held, "nothing deleted at the hub: \(after)")
        #expect(after["retracted"] as? Int == 1, "\(after)")
        let marked = try await hubRows(
            postgres: postgres,
            passwordFile: passwordFile,
            "SELECT id FROM hub_sample WHERE retracted_at IS NOT NULL"
        )
        #expect(marked == [typed])
        let stopped = try await hub.stop()
        #expect(stopped.exited && stopped.status == 0, "\(hub.stderr)")
        await postgres.stop()
    }

    /// Runs `carebridge arguments…` and expects it to succeed.
    @discardableResult
    func succeeding(_ arguments: [String]) async throws -> CarebridgeRun {
        let run = try await carebridge(arguments)
        #expect(run.status == 0, "\(run)")
        return run
    }

    /// Enrols `bridge` for `patient` and writes its token to `tokenFile`.
    func enrol(_ bridge: String, patient: String, database: [String], tokenFile: String) async throws {
        let enrolled = try await succeeding(["hub", "enrol"] + database + ["--bridge", bridge, "--patient", patient])
        try Data(enrolled.stdout.utf8).write(to: URL(fileURLWithPath: tokenFile))
    }
}
