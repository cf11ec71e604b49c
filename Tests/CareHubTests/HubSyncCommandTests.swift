import CareHub
import CareStore
import Foundation
import Logging
import PostgresNIO
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Three bridges (three real stores) push to one hub on a real PostgreSQL through the real `carebridge` binary:
/// enrol, serve, push; a response lost after the hub stored the batch, the hub killed, PostgreSQL restarted
/// while a push waits; a bridge writing for a patient it is not enrolled for.
@Suite(.serialized) struct HubSyncCommandTests {
    let scratch: ScratchDirectory
    var directory: URL { scratch.url }

    init() throws {
        scratch = try ScratchDirectory("carebridge-hub-")
    }

    func carebridge(_ arguments: [String]) async throws -> CarebridgeRun {
        let output = try await ChildProcess.run(
            PackageRoot.carebridgeExecutable,
            arguments,
            environment: ["TZ": "Europe/Berlin"]
        )
        return CarebridgeRun(
            arguments: arguments,
            status: output.status,
            stdout: output.standardOutput,
            stderr: output.standardError
        )
    }

    /// A bridge's store with its one patient and `count` weights from `first` on (minutes apart).
    func ingest(_ store: String, count: Int, from first: Int) async throws {
        for minute in first..<(first + count) {
            let run = try await carebridge([
                "ingest", "bodyMass", "\(70 + Double(minute) / 10)", "kg", "--at",
                String(format: "2026-11-20T07:%02d", minute), "--force", "--store", store,
            ])
            #expect(run.status == 0, "\(run)")
        }
    }

    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func threeBridgesReachTheHubExactlyOnceInOrderThroughLostAnswersAndRestarts() async throws {
        let (postgres, passwordFile, database) = try await startPostgres()

        // Three bridges, each with its patient and three readings; a fourth whose patient is not its enrolment's.
        let bridges = ["home-1": "ann", "home-2": "ben", "home-3": "cat", "home-4": "dan"]
        var stores: [String: String] = [:]
        var tokens: [String: String] = [:]
        for (bridge, patient) in bridges.sorted(by: { $0.key < $1.key }) {
            let store = directory.appendingPathComponent("\(bridge).sqlite").path
            stores[bridge] = store
            let added = try await carebridge([
                "patients", "add", patient, "--name", patient.capitalized, "--store", store,
            ])
            #expect(added.status == 0, "\(added)")
            try await ingest(store, count: 3, from: 0)
            let enrolled = try await carebridge(
                ["hub", "enrol"] + database + ["--bridge", bridge, "--patient", bridge == "home-4" ? "ann" : patient]
            )
            #expect(enrolled.status == 0, "\(enrolled)")
            let token = enrolled.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(token.hasPrefix("cbh_") && token.count == 68, "one token, printed once: \(enrolled.stdout)")
            tokens[bridge] = token
            try Data("\(token)\n".utf8).write(to: directory.appendingPathComponent("\(bridge).token"))
        }
        // Enrolling again adds a patient and prints no token.
        let again = try await carebridge(["hub", "enrol"] + database + ["--bridge", "home-1", "--patient", "ann"])
        #expect(again.status == 0 && again.stdout.isEmpty, "\(again)")

        var hub = try await serveHub(database)
        var hubLogs = ""
        func push(_ bridge: String, timeout: Int = 60) async throws -> CarebridgeRun {
            try await carebridge([
                "sync", "push", "--hub", hub.url, "--token-file",
                directory.appendingPathComponent("\(bridge).token").path,
                "--timeout", "\(timeout)", "--store", stores[bridge]!, "--json",
            ])
        }

        for bridge in ["home-1", "home-2", "home-3"] {
            let pushed = try await push(bridge)
            #expect(pushed.status == 0, "\(pushed)")
            #expect(pushed.stdout.contains(#""sent": 3"#), "\(pushed)")
        }

        // Enrolled for ann, writing for dan: refused, nothing stored, the readings stay queued on the bridge.
        let refused = try await push("home-4", timeout: 2)
        #expect(refused.status == 75, "\(refused)")
        #expect(refused.stderr.contains("HTTP 403"), "\(refused.stderr)")
        #expect(
            refused.stderr.contains("not enrolled for patient dan; nothing of the batch was stored"),
            "\(refused.stderr)"
        )

        // A token no bridge has: refused before anything is read.
        try Data("cbh_\(String(repeating: "0", count: 64))\n".utf8).write(
            to: directory.appendingPathComponent("home-5.token")
        )
        stores["home-5"] = stores["home-4"]
        // Retrying cannot help: the push stops at once with 77, everything still queued.
        let stranger = try await push("home-5", timeout: 600)
        #expect(stranger.status == 77, "\(stranger)")
        #expect(stranger.stderr.contains("HTTP 401") && stranger.stderr.contains("stay queued"), "\(stranger.stderr)")

        // A lost answer: the hub stored the batch, the bridge never heard (its store as it was before the push).
        try await ingest(stores["home-1"]!, count: 2, from: 3)
        let before = try copyStore(stores["home-1"]!, to: "home-1-before-push")
        let first = try await push("home-1")
        #expect(first.status == 0 && first.stdout.contains(#""sent": 2"#), "\(first)")
        try restoreStore(before, to: stores["home-1"]!)
        let resent = try await push("home-1")
        #expect(resent.status == 0 && resent.stdout.contains(#""sent": 2"#), "sent again, stored once: \(resent)")

        // The hub killed: the push fails and keeps its readings; after the restart they arrive.
        hubLogs += hub.stdout + hub.stderr
        hub.kill9()
        try await ingest(stores["home-2"]!, count: 2, from: 3)
        let unreachable = try await push("home-2", timeout: 2)
        #expect(unreachable.status == 75, "\(unreachable)")
        #expect(unreachable.stderr.contains("2 entries are still waiting for the hub"), "\(unreachable.stderr)")
        hub = try await serveHub(database)
        let caughtUp = try await push("home-2")
        #expect(caughtUp.status == 0 && caughtUp.stdout.contains(#""sent": 2"#), "\(caughtUp)")

        // PostgreSQL stopped while a push runs: the hub answers 503, the bridge backs off and retries, and once
        // PostgreSQL is back the batch lands.
        try await ingest(stores["home-3"]!, count: 2, from: 3)
        await postgres.stop()
        let pending = try ChildProcess(
            PackageRoot.carebridgeExecutable,
            [
                "sync", "push", "--hub", hub.url, "--token-file", directory.appendingPathComponent("home-3.token").path,
                "--timeout", "300", "--store", stores["home-3"]!, "--json",
            ]
        )
        let hubRef = hub
        try await waitUntil("the hub answers the push with 503 while PostgreSQL is down") {
            hubRef.stderr.contains("sync failed")
        }
        try await postgres.start()
        let retried = await pending.wait()
        #expect(retried.status == 0 && retried.standardOutput.contains(#""sent": 2"#), "\(retried.standardError)")

        // What the hub holds: every reading of each bridge once, in the bridge's order, for its patient.
        let status = try await carebridge(["hub", "status", "--json"] + database)
        #expect(status.status == 0, "\(status)")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [[String: Any]])
        #expect(list.map { $0["bridge"] as? String } == ["home-1", "home-2", "home-3", "home-4"])
        #expect(list.map { $0["samples"] as? Int } == [5, 5, 5, 0], "\(status.stdout)")
        #expect(list.map { $0["lastContact"] is String } == [true, true, true, false])

        // Each bridge sent its patient's name from its store (`patients add --name`); home-4's was refused.
        let named = try await HubDatabase(url: postgres.url, passwordFile: passwordFile)
            .withClient(logger: Logger(label: "test")) { client in
                try await HubStore(client: client, logger: Logger(label: "test"))
                    .overviewRows(patients: nil, since: .distantPast).patients.map { "\($0.id)=\($0.name)" }
            }
        #expect(named == ["ann=Ann", "ben=Ben", "cat=Cat"], "the names the bridges sent with their batches")

        let held = try await heldSamples(postgres: postgres, passwordFile: passwordFile)
        for bridge in ["home-1", "home-2", "home-3"] {
            let local = try await carebridge(["samples", "--json", "--store", stores[bridge]!])
            let samples = try #require(
                try JSONSerialization.jsonObject(with: Data(local.stdout.utf8)) as? [[String: Any]]
            )
            let ids = samples.compactMap { $0["id"] as? String }
            let rows = held.filter { $0.bridge == bridge }
            #expect(ids.count == 5)
            #expect(rows.map(\.id) == ids, "\(bridge): arrival order is the bridge's order, each reading once")
            #expect(rows.map(\.sequence) == rows.map(\.sequence).sorted(), "\(bridge): sequences rise with arrival")
            #expect(Set(rows.map(\.patient)) == [bridges[bridge]!])
        }

        let stopped = try await hub.stop()
        #expect(stopped.exited && stopped.status == 0, "\(hub.stderr)")
        hubLogs += hub.stdout + hub.stderr
        await postgres.stop()
        #expect(hubLogs.contains("batch received") && hubLogs.contains("home-2"), "logs name the bridge: \(hubLogs)")
        #expect(hubLogs.contains("the token belongs to no enrolled bridge"), "the stranger was refused: \(hubLogs)")
        for (bridge, token) in tokens {
            #expect(!hubLogs.contains(token), "\(bridge)'s token is not in the hub's logs")
            #expect(!hubLogs.contains(String(token.dropFirst(4).prefix(16))), "nor a part of it")
        }
        #expect(!hubLogs.contains(postgres.password), "the database password is not in the hub's logs")
    }

    /// A started PostgreSQL, its password file and the `--database` options naming both.
    func startPostgres() async throws -> (PostgresServer, passwordFile: String, database: [String]) {
        let postgres = try await PostgresServer(directory: directory)
        try await postgres.start()
        let passwordFile = directory.appendingPathComponent("db-password").path
        return (postgres, passwordFile, try postgres.databaseOptions(passwordFile: passwordFile))
    }

    /// `hub serve` on `database`, listening on a free local port.
    func serveHub(_ database: [String]) async throws -> ListeningProcess {
        try await ListeningProcess.start(
            ["hub", "serve"] + database + ["--listen", "127.0.0.1:0"],
            prefix: "hub listening on ",
            directory: directory
        )
    }

    /// One `sync push --json` of `store` to `hub` with the token in `tokenFile`.
    func syncPush(
        _ store: String,
        to hub: ListeningProcess,
        tokenFile: String,
        timeout: Int
    ) async throws
        -> CarebridgeRun
    {
        try await carebridge([
            "sync", "push", "--hub", hub.url, "--token-file", tokenFile, "--timeout", "\(timeout)", "--store", store,
            "--json",
        ])
    }

    /// The store file and its journal files, copied aside.
    func copyStore(_ path: String, to name: String) throws -> [String: Data?] {
        var files: [String: Data?] = [:]
        for suffix in ["", "-wal", "-shm"] {
            files[suffix] = FileManager.default.contents(atPath: path + suffix)
        }
        _ = name
        return files
    }

    func restoreStore(_ files: [String: Data?], to path: String) throws {
        for (suffix, data) in files {
            try? FileManager.default.removeItem(atPath: path + suffix)
            if let data { try data.write(to: URL(fileURLWithPath: path + suffix)) }
        }
    }

    struct HeldSample: Sendable {
        var bridge: String
        var id: String
        var sequence: Int64
        var patient: String
    }

    /// Every sample the hub holds, in the order it arrived.
    func heldSamples(postgres: PostgresServer, passwordFile: String) async throws -> [HeldSample] {
        let database = try HubDatabase(url: postgres.url, passwordFile: passwordFile)
        return try await database.withClient(logger: Logger(label: "test")) { client in
            var held: [HeldSample] = []
            let rows = try await client.query(
                """
                SELECT b.name, s.id, s.bridge_sequence, s.patient_id FROM hub_sample s
                JOIN hub_bridge b ON b.id = s.bridge_id ORDER BY s.arrival
                """
            )
            for try await (bridge, id, sequence, patient) in rows.decode((String, String, Int64, String).self) {
                held.append(HeldSample(bridge: bridge, id: id, sequence: sequence, patient: patient))
            }
            return held
        }
    }
}

/// One finished `carebridge` run, printed whole when an expectation on it fails.
struct CarebridgeRun: CustomStringConvertible {
    var arguments: [String]
    var status: Int32
    var stdout: String
    var stderr: String

    var description: String { "carebridge \(arguments.joined(separator: " ")) → \(status)\n\(stdout)\n\(stderr)" }
}
