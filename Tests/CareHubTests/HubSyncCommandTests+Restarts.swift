import CareHub
import Foundation
import Logging
import PostgresNIO
import TestSupport
import Testing

extension HubSyncCommandTests {
    /// Mid-sync, with a batch in flight (its transaction open at the hub, held on a lock the test takes): the hub
    /// killed and started again on its port, then PostgreSQL restarted (a fast shutdown and a start, as
    /// `pg_ctl restart` does). The push carries on by itself both times, and the hub holds every reading of the
    /// bridge exactly once, in the bridge's order.
    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func aHubKilledAndPostgresRestartedWithABatchInFlightLoseAndRepeatNothing() async throws {
        let (postgres, passwordFile, database) = try await startPostgres()
        let (store, tokenFile) = try await heartRateBridge(database: database)
        let listen = "127.0.0.1:\(try MosquittoBroker.freeLoopbackPort())"
        func serve() async throws -> ListeningProcess {
            try await ListeningProcess.start(
                ["hub", "serve"] + database + ["--listen", listen],
                prefix: "hub listening on ",
                directory: directory
            )
        }
        var hub = try await serve()
        let startPush = Self.pushStarter(hub: hub.url, tokenFile: tokenFile, store: store)
        let hubDatabase = try HubDatabase(url: postgres.url, passwordFile: passwordFile)

        // The hub killed while its first batch waits on the lock: nothing of that batch is committed; the push
        // retries until the hub is back on its port.
        let killed = hub
        var pending = try await Self.withBatchWaitingOnALock(hubDatabase, push: startPush) { lock in
            killed.kill9()
            try await lock.query("COMMIT", logger: Logger(label: "test"))
        }
        hub = try await serve()
        let first = await pending.wait()
        #expect(first.status == 0, "\(first.standardError)")
        let held = try await hubRows(
            postgres: postgres,
            passwordFile: passwordFile,
            "SELECT count(*)::text FROM hub_sample"
        )
        let readings = Int(held.first ?? "") ?? 0
        #expect(readings > 1000, "\(held)")

        // PostgreSQL restarted while the next batch waits on the lock: the hub answers 503, the push backs off and
        // retries, and the batch lands once PostgreSQL is back.
        try await ingest(store, count: 3, from: 10)
        pending = try await Self.withBatchWaitingOnALock(hubDatabase, push: startPush) { _ in await postgres.stop() }
        try await postgres.start()
        let second = await pending.wait()
        #expect(second.status == 0, "\(second.standardError)")
        #expect(second.standardOutput.contains(#""sent": 3"#), "\(second.standardOutput)")

        // Every reading once, in the bridge's order.
        try await expectEachReadingOnceInOrder(
            store: store,
            held: try await heldSamples(postgres: postgres, passwordFile: passwordFile),
            count: readings + 3
        )
        let stopped = try await hub.stop()
        #expect(stopped.exited && stopped.status == 0, "\(hub.stderr)")
        await postgres.stop()
    }

    /// Bridge home-1's store with patient ann and a 20-minute heart-rate session (well over a thousand readings,
    /// several batches), enrolled at the hub.
    /// - Returns: the store's path and the bridge's token file.
    func heartRateBridge(database: [String]) async throws -> (store: String, tokenFile: String) {
        let store = directory.appendingPathComponent("home-1.sqlite").path
        let tokenFile = directory.appendingPathComponent("home-1.token").path
        try await succeeding(["patients", "add", "ann", "--name", "Ann", "--store", store])
        let recording = PackageRoot.url.appendingPathComponent("Recordings/heart-rate-strap-20-minutes.jsonl").path
        try await succeeding(["replay", recording, "--store", store])
        try await enrol("home-1", patient: "ann", database: database, tokenFile: tokenFile)
        return (store, tokenFile)
    }

    /// Starts `carebridge sync push` of `store` to `hub` (600 s to get everything through).
    static func pushStarter(hub: String, tokenFile: String, store: String) -> @Sendable () throws -> ChildProcess {
        {
            try ChildProcess(
                PackageRoot.carebridgeExecutable,
                [
                    "sync", "push", "--hub", hub, "--token-file", tokenFile, "--timeout", "600", "--store", store,
                    "--json",
                ],
                environment: ["TZ": "Europe/Berlin"]
            )
        }
    }

    /// The hub holds `count` readings: each of the bridge's store once, arrived in the bridge's order.
    func expectEachReadingOnceInOrder(store: String, held rows: [HeldSample], count: Int) async throws {
        let local = try await carebridge(["samples", "--json", "--store", store])
        let ids = try #require(try JSONSerialization.jsonObject(with: Data(local.stdout.utf8)) as? [[String: Any]])
            .compactMap { $0["id"] as? String }
        #expect(rows.count == count)
        #expect(rows.count == ids.count && Set(rows.map(\.id)) == Set(ids), "each reading once")
        #expect(Set(rows.map(\.id)).count == rows.count, "no reading twice")
        #expect(rows.map(\.sequence) == rows.map(\.sequence).sorted(), "arrival order is the bridge's order")
    }

    /// Takes a lock on the hub's samples, starts `push` and runs `body` once a batch of it waits for the lock: the
    /// batch's transaction is open at the hub. `body` releases the lock (or stops PostgreSQL).
    /// - Returns: the push, running.
    static func withBatchWaitingOnALock(
        _ database: HubDatabase,
        push: @escaping @Sendable () throws -> ChildProcess,
        then body: @escaping @Sendable (PostgresConnection) async throws -> Void
    ) async throws -> ChildProcess {
        try await database.withClient(logger: Logger(label: "test")) { client in
            try await client.withConnection { lock in
                try await lock.query("BEGIN", logger: Logger(label: "test"))
                try await lock.query("LOCK TABLE hub_sample IN EXCLUSIVE MODE", logger: Logger(label: "test"))
                let running = try push()
                try await waitUntil("a batch waits for the lock", timeout: .seconds(300)) {
                    try await lockWaits(on: lock) > 0
                }
                try await body(lock)
                return running
            }
        }
    }

    /// Backends of the hub waiting for a lock (the test's connection holds it).
    static func lockWaits(on connection: PostgresConnection) async throws -> Int {
        let rows = try await connection.query(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'",
            logger: Logger(label: "test")
        )
        var count: Int64 = 0
        for try await value in rows.decode(Int64.self) { count = value }
        return Int(count)
    }
}
