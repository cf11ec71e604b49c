import CareHub
import Foundation
import InMemoryLogging
import Logging
import PostgresNIO
import TestSupport
import Testing

/// The hub over several servers: with none writable it answers 503, probes again only when its backoff (on a clock
/// the test moves) is over, and takes the first server that becomes writable; a server that turns read-only sends it
/// to the next writable one, the switch logged once. Real PostgreSQL servers.
@Suite struct HubPrimaryTests {
    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func aReadOnlyErrorSendsTheHubToTheNextWritableServerLoggedOnce() async throws {
        let scratch = try ScratchDirectory("cb-ro-")  // short: the servers' socket paths have 107 bytes at most
        let first = try await PostgresServer(directory: scratch.url.appendingPathComponent("a"))
        let second = try await PostgresServer(directory: scratch.url.appendingPathComponent("b"))
        try await first.start()
        try await second.start()
        // Each server has its own password: one password-file line per port, as libpq reads them.
        let passFile = scratch.path("pgpass")
        try ScratchDirectory.writeSecret(
            "127.0.0.1:\(first.port):*:*:\(first.password)\n127.0.0.1:\(second.port):*:*:\(second.password)\n",
            to: passFile
        )
        let database = try HubDatabase(
            url: "postgres://carehub@127.0.0.1:\(first.port),127.0.0.1:\(second.port)/postgres?sslmode=disable",
            environment: ["PGPASSFILE": passFile]
        )
        let logs = InMemoryLogHandler()
        let logger = Logger(label: "hub", factory: { _ in logs })
        let primary = HubPrimary(database: database, probeTimeout: .seconds(30), logger: logger)
        let store = HubStore(primary: primary, deadline: .seconds(30), logger: logger)
        let running = Task { try await primary.run() }
        defer { running.cancel() }
        try await store.migrate()
        #expect(primary.server?.port == first.port)

        // The first server turns read-only (as a demoted primary would): the next write fails with SQLSTATE 25006,
        // the hub probes, and writes go to the second.
        try await HubDatabase(url: first.url, environment: ["PGPASSFILE": passFile]).withClient(logger: logger) {
            client in
            try await client.query("ALTER SYSTEM SET default_transaction_read_only = on")
            try await client.query("SELECT pg_reload_conf()")
        }
        try await waitUntil("the hub writes to the second server", timeout: .seconds(120)) {
            do {
                try await store.migrate()
                _ = try await store.enrol(bridge: "home-1", patients: ["ann"])
                return primary.server?.port == second.port
            } catch {
                return false
            }
        }
        let switches = logs.entries.filter { "\($0.message)" == "hub database switched to a new writable server" }
        #expect(switches.count == 1, "\(logs.entries)")
        #expect(switches.first?.level == .warning)
        #expect(switches.first?.metadata["database.server"] == "127.0.0.1:\(second.port)")
        #expect(switches.first?.metadata["database.previous"] == "127.0.0.1:\(first.port)")
        #expect(try await store.status().map(\.name) == ["home-1"])
        running.cancel()
        try await running.value
        await first.stop()
        await second.stop()
    }

    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func withNoWritableServerTheHubAnswers503AndProbesAgainOnlyAfterItsBackoff() async throws {
        let scratch = try ScratchDirectory("carebridge-hub-primary-")
        let postgres = try await PostgresServer(directory: scratch.url)  // not started yet
        let nothing = try MosquittoBroker.freeLoopbackPort()  // nothing listens there
        let passwordFile = try scratch.writeSecret("password", postgres.password)
        let database = try HubDatabase(
            url: "postgres://carehub@127.0.0.1:\(nothing),127.0.0.1:\(postgres.port)/postgres?sslmode=disable",
            passwordFile: passwordFile
        )
        let clock = ManualClock()
        let logs = InMemoryLogHandler()
        var logger = Logger(label: "hub", factory: { _ in logs })
        logger.logLevel = .debug
        let primary = HubPrimary(database: database, probeTimeout: .seconds(10), clock: clock, logger: logger)
        let store = HubStore(primary: primary, deadline: .seconds(1), logger: logger)
        let running = Task { try await primary.run() }
        defer { running.cancel() }
        func probes() -> Int { logs.entries.filter { "\($0.message)".hasPrefix("hub database probe") }.count }

        // One round: both servers probed, none writable; then the hub waits on its clock, not in a loop.
        try await waitUntil("the hub says no server is writable") {
            logs.entries.contains { "\($0.message)".hasPrefix("no writable PostgreSQL server") }
        }
        try await clock.waitForSleepers(1)
        #expect(probes() == 2)
        await #expect(throws: HubError.self) { _ = try await store.status() }
        #expect(probes() == 2, "a request waits for a writable server, it does not probe")

        // The backoff doubles: 0.5 s, then 1 s.
        clock.advance(by: .milliseconds(500))
        try await waitUntil("the second round") { probes() == 4 }
        try await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(500))
        #expect(probes() == 4, "the second wait is longer")

        // The second server starts: the next round takes it, and what waits is served.
        try await postgres.start()
        clock.advance(by: .milliseconds(500))
        try await waitUntil("a writable server found") { primary.server?.port == postgres.port }
        #expect(try await store.migrate() == HubSchema.migrations.map(\.name))
        let found = logs.entries.filter { "\($0.message)" == "hub database: writable server found" }
        #expect(found.count == 1)
        #expect(found.first?.metadata["database.server"] == "127.0.0.1:\(postgres.port)")
        #expect(!logs.entries.contains { "\($0)".contains(postgres.password) }, "never the password")
        running.cancel()
        try await running.value
        await postgres.stop()
    }
}
