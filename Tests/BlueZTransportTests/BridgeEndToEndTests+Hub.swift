import Foundation
import TestSupport
import Testing

extension FakeBlueZSuites.BridgeEndToEndTests {
    /// `run --hub` with a client certificate: the bridge's hub channel runs among its services, so each reading it
    /// stores while it runs reaches the hub (a real PostgreSQL and `hub serve` over TLS with `--client-ca`) once,
    /// and a plan put on the hub for its patient comes down while it runs; the key stays out of every output.
    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func runSendsEachStoredReadingToTheHubAndAppliesItsPlan() async throws {
        let scratch = try ScratchDirectory("carebridge-run-hub-")
        func file(_ name: String) -> String { scratch.url.appendingPathComponent(name).path }
        func carebridge(_ arguments: [String]) async throws -> String {
            let run = try await CarebridgeBinary.run(arguments)
            #expect(run.status == 0, "carebridge \(arguments.joined(separator: " ")): \(run.stderr)")
            return run.stdout
        }
        let fake = try await FakeBlueZ()
        defer { fake.stop() }
        try await fake.addAdapter()
        let store = file("bridge.sqlite")
        _ = try await carebridge(["patients", "add", "ann", "--name", "Ann", "--store", store])

        let postgres = try await PostgresServer(directory: scratch.url)
        try await postgres.start()
        let database = try postgres.databaseOptions(passwordFile: file("db-password"))
        let authority = try TestCertificateAuthority()
        let server = try authority.issueServer(named: "hub", ipAddresses: ["127.0.0.1"])
        _ = try await carebridge(["hub", "client-ca", "--certificate", file("ca.pem"), "--key", file("ca.key")])
        _ = try await carebridge([
            "sync", "certificate-request", "--bridge", "home-1", "--key", file("home-1.key"), "--csr",
            file("home-1.csr"),
        ])
        let certificate = try await carebridge(
            ["hub", "enrol"] + database + [
                "--bridge", "home-1", "--patient", "ann", "--csr", file("home-1.csr"), "--client-ca-cert",
                file("ca.pem"), "--client-ca-key", file("ca.key"),
            ]
        )
        try Data(certificate.utf8).write(to: URL(fileURLWithPath: file("home-1.pem")))
        try Data(Self.hubPlan.utf8).write(to: URL(fileURLWithPath: file("plan.json")))
        _ = try await carebridge(["hub", "plan", "apply"] + database + ["--patient", "ann", file("plan.json")])
        let hub = try await ListeningProcess.start(
            ["hub", "serve"] + database + [
                "--listen", "127.0.0.1:0", "--tls-cert", server.certificate, "--tls-key", server.key,
                "--client-ca", file("ca.pem"),
            ],
            prefix: "hub listening on ",
            directory: scratch.url
        )

        let bridge = try await Self.startBridge(
            fake,
            store: store,
            extra: [
                "--hub", hub.url, "--hub-client-cert", file("home-1.pem"), "--hub-client-key", file("home-1.key"),
                "--hub-ca-file", authority.certificate,
            ]
        )
        let weighIn = "weight-scale-morning-weigh-in.jsonl"
        try await fake.play(FakeBlueZ.recordings.appendingPathComponent(weighIn))
        let expected = try Self.keys(fromGolden: weighIn)
        try await Self.settle(fake) { try await Self.storedKeys(store).count >= expected.count }
        let stored = try await Self.storedKeys(store).count
        func held() async throws -> Int? {
            let status = try await carebridge(["hub", "status", "--json"] + database)
            let list = try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [[String: Any]]
            return list?.first?["samples"] as? Int
        }
        try await waitUntil("the hub holds the bridge's readings", timeout: .seconds(120), interval: .milliseconds(250))
        {
            try await held() == stored
        }
        try await waitUntil("the hub's plan is applied on the bridge", timeout: .seconds(120)) {
            try await carebridge(["plan", "show", "--json", "--patient", "ann", "--store", store])
                .contains("hub-check")
        }
        #expect(await bridge.terminate() == 0, "\(bridge.stderr)")
        #expect(try await held() == stored, "each reading once")
        let stopped = try await hub.stop()
        #expect(stopped.exited && stopped.status == 0, "\(hub.stderr)")
        await postgres.stop()
        let key = try String(contentsOfFile: file("home-1.key"), encoding: .utf8)
        let keyLine = try #require(key.split(separator: "\n").dropFirst().first.map(String.init))
        for output in [bridge.stdout, bridge.stderr, hub.stdout, hub.stderr] {
            #expect(!output.contains(keyLine), "the bridge's key is in no output")
        }
    }

    /// A plan for ann put on the hub: one task the bridge's own plan does not have.
    static let hubPlan = """
        {"patient": {"id": "ann", "name": "Ann"},
         "tasks": [
          {"id": "hub-check", "title": "Check your ankles", "kind": "assessment",
           "schedule": {"timeZone": "Europe/Berlin",
                        "elements": [{"start": "2026-11-01T00:00:00", "interval": {"days": 1}, "duration": "allDay"}]},
           "answer": {"type": "scale", "min": 0, "max": 3}}
         ]}
        """
}
