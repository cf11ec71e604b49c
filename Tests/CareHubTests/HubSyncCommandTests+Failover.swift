import CareHub
import Foundation
import Logging
import PostgresNIO
import TestSupport
import Testing

extension HubSyncCommandTests {
    /// A primary and its streaming replica (`pg_basebackup -R`, synchronous: the primary commits only once the
    /// replica has the commit), a bridge syncing through the hub, which is given both servers
    /// (`postgres://…@PRIMARY,REPLICA/…?target_session_attrs=read-write`). With a batch in flight (its transaction
    /// open at the hub, waiting on a lock the test holds), the primary is killed (SIGKILL) and the replica promoted.
    /// The hub is not restarted: it answers 503 while no server is writable, finds the promoted replica by itself and
    /// logs the switch once; the push carries on: every reading the hub had taken before the crash is on the new
    /// primary, the rest arrive, each once, in the bridge's order.
    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func aPrimaryKilledMidSyncAndItsReplicaPromotedLoseAndRepeatNothing() async throws {
        let primary = try await PostgresServer(directory: directory.appendingPathComponent("primary"))
        primary.settings = ["synchronous_standby_names": "*"]
        try await primary.start()
        let replica = try await PostgresServer(
            replicaOf: primary,
            directory: directory.appendingPathComponent("replica")
        )
        try await replica.start()
        let passwordFile = directory.appendingPathComponent("db-password").path
        let database = try primary.databaseOptions(passwordFile: passwordFile, replicas: [replica])
        let primaryDatabase = try HubDatabase(url: primary.url, passwordFile: passwordFile)
        try await primaryDatabase.withClient(logger: Logger(label: "test")) { client in
            try await waitUntil("the replica streams synchronously from the primary", timeout: .seconds(300)) {
                let rows = try await client.query("SELECT sync_state FROM pg_stat_replication")
                var states: [String] = []
                for try await state in rows.decode(String.self) { states.append(state) }
                return states == ["sync"]
            }
        }

        let (store, tokenFile) = try await heartRateBridge(database: database)
        let listen = "127.0.0.1:\(try MosquittoBroker.freeLoopbackPort())"
        let hub = try await ListeningProcess.start(
            ["hub", "serve"] + database + ["--listen", listen],
            prefix: "hub listening on ",
            directory: directory
        )
        let startPush = Self.pushStarter(hub: hub.url, tokenFile: tokenFile, store: store)
        // The session's readings reach the hub (committed on both servers).
        let first = try await startPush().wait()
        #expect(first.status == 0, "\(first.standardError)")
        let taken = try await hubRows(
            postgres: primary,
            passwordFile: passwordFile,
            "SELECT count(*)::text FROM hub_sample"
        )
        let readings = Int(taken.first ?? "") ?? 0
        #expect(readings > 1000, "\(taken)")

        // Three more readings; their batch waits on the lock when the primary is killed. The hub answers 503 until
        // it finds the promoted replica writable; the push backs off and retries.
        try await ingest(store, count: 3, from: 10)
        let pending = try await Self.withBatchWaitingOnALock(primaryDatabase, push: startPush) { _ in
            primary.kill9()
        }
        try await replica.promote()
        let second = await pending.wait()
        #expect(second.status == 0, "\(second.standardError)")
        #expect(second.standardOutput.contains(#""sent": 3"#), "\(second.standardOutput)")

        // On the new primary: every reading once, in the bridge's order, nothing the old primary had taken lost.
        try await expectEachReadingOnceInOrder(
            store: store,
            held: try await heldSamples(postgres: replica, passwordFile: passwordFile),
            count: readings + 3
        )
        // The hub's log names the switch once, with the servers and never the password.
        let switches = hub.stderr.split(separator: "\n").filter {
            $0.contains("hub database switched to a new writable server")
        }
        #expect(switches.count == 1, "\(hub.stderr)")
        #expect(switches.first?.contains("127.0.0.1:\(replica.port)") == true, "\(switches)")
        #expect(switches.first?.contains("127.0.0.1:\(primary.port)") == true, "\(switches)")
        #expect(!hub.stderr.contains(primary.password))
        let last = try await hub.stop()
        #expect(last.exited && last.status == 0, "\(hub.stderr)")
        await replica.stop()
    }
}
