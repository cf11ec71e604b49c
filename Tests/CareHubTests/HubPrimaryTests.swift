import CareHub
import Foundation
import InMemoryLogging
import Logging
import TestSupport
import Testing

/// The hub over several servers with none writable: it answers 503, probes again only when its backoff (on a clock
/// the test moves) is over, and takes the first server that becomes writable. A real PostgreSQL.
@Suite struct HubPrimaryTests {
    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func withNoWritableServerTheHubAnswers503AndProbesAgainOnlyAfterItsBackoff() async throws {
        let scratch = try ScratchDirectory("carebridge-hub-primary-")
        let postgres = try PostgresServer(directory: scratch.url)  // not started yet
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
