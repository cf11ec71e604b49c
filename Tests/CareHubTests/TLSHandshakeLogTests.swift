import CareHub
import CareWeb
import Foundation
import InMemoryLogging
import Logging
import PostgresNIO
import Prometheus
import ServiceLifecycle
import TestSupport
import Testing

/// The hub's own TLS server on a real socket, refusing client certificates that `curl` shows: the warning says why
/// (expired, with the date; not valid yet, with the date; not signed by the client CA), and a client that retries
/// a refused certificate gets one warning and one summary counting the rest when the window (on a clock the test
/// moves) is over; every refusal is counted in the hub's metrics by reason.
@Suite struct TLSHandshakeLogTests {
    @Test func refusedClientCertificatesSayWhyAndARetryingClientGetsOneWarningAndOneSummary() async throws {
        let scratch = try ScratchDirectory("cb-tlslog-")
        let serverAuthority = try TestCertificateAuthority()
        let serverCertificate = try serverAuthority.issueServer(named: "hub", ipAddresses: ["127.0.0.1"])
        // The hub's client CA and home-3's certificates from it: expired yesterday, valid from tomorrow, valid now.
        let clientCA = try HubCertificateAuthority.create(name: "clients", days: 2)
        try Data(clientCA.certificatePEM.utf8).write(to: scratch.url("clients-ca.pem"))
        let request = try HubCertificateRequest(bridge: "home-3")
        try request.write(key: scratch.path("home-3.key"), request: scratch.path("home-3.csr"))
        let second = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        func issue(_ name: String, from start: TimeInterval, until end: TimeInterval) throws -> Date {
            let issued = try clientCA.authority.issue(
                requestPEM: request.requestPEM,
                bridge: "home-3",
                validFrom: second.addingTimeInterval(start),
                validUntil: second.addingTimeInterval(end)
            )
            try Data(issued.pem.utf8).write(to: scratch.url("\(name).pem"))
            return issued.validUntil
        }
        let expiredAt = try issue("expired", from: -3 * 86_400, until: -86_400)
        _ = try issue("future", from: 86_400, until: 3 * 86_400)
        _ = try issue("valid", from: -60, until: 86_400)
        // A certificate naming home-1, from a CA the hub does not trust.
        // (The CA is kept until the end: its files, the rogue certificate's too, go with it.)
        let otherCA = try TestCertificateAuthority(name: "Another CA")
        let rogue = try otherCA.issueClient(named: "rogue", commonName: "home-1")

        let logs = InMemoryLogHandler()
        let logger = Logger(label: "hub", factory: { _ in logs })
        let clock = ManualClock()
        var configuration = WebConfiguration(
            host: "127.0.0.1",
            port: 0,
            tls: (certificate: serverCertificate.certificate, key: serverCertificate.key)
        )
        configuration.clientCertificateAuthority = scratch.path("clients-ca.pem")
        let unused = try HubDatabase(url: "postgres://hub@127.0.0.1:1/hub?sslmode=disable")
        let server = HubServer(
            store: HubStore(
                client: PostgresClient(configuration: unused.configuration, backgroundLogger: logger),
                logger: logger
            ),
            configuration: configuration,
            clock: clock,
            logger: logger
        )
        let (addresses, listening) = AsyncStream.makeStream(of: String.self)
        let application = try server.service { listening.yield($0) }
        let refusals = Task { try await server.refusals.run() }
        let running = Task { try await application.run() }
        defer {
            running.cancel()
            refusals.cancel()
        }
        var iterator = addresses.makeAsyncIterator()
        let listeningAt = await iterator.next()
        let url = try #require(listeningAt)

        /// `curl` with `certificate` and its key (home-3's by default): whether it got its answer.
        func get(with certificate: String, key: String? = nil) async throws -> Bool {
            let curl = try #require(MosquittoBroker.locate("curl"), "curl is not installed (apt-get install -y curl)")
            let output = try await ChildProcess.run(
                URL(fileURLWithPath: curl),
                [
                    "--silent", "--output", "/dev/null", "--cacert", serverAuthority.certificate, "--cert",
                    certificate, "--key", key ?? scratch.path("home-3.key"), "\(url)/health",
                ]
            )
            return output.exited && output.status == 0
        }
        func refused(_ reason: String) -> Int {
            let line = "carebridge_hub_tls_refused_total{reason=\"\(reason)\"} "
            let text = server.metrics.registry.emitToString()
            return text.split(separator: "\n").first { $0.hasPrefix(line) }.flatMap { Int($0.dropFirst(line.count)) }
                ?? 0
        }
        /// Every refusal counted so far, whatever its reason.
        func refusedInAll() -> Int {
            let prefix = "carebridge_hub_tls_refused_total{"
            return server.metrics.registry.emitToString().split(separator: "\n").filter { $0.hasPrefix(prefix) }
                .compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }.reduce(0, +)
        }
        func warnings() -> [InMemoryLogHandler.Entry] { logs.entries.filter { $0.level == .warning } }
        /// Ends the open window (no summary when nothing was counted in it).
        func nextWindow() { clock.advance(by: TLSRefusalLog.defaultWindow) }

        // Each kind of refusal, one window apart: one warning each, saying why.
        #expect(try await get(with: scratch.path("expired.pem")) == false)
        try await waitUntil("the expired certificate's refusal is counted") { refusedInAll() == 1 }
        #expect(refused("expired") == 1, "\(server.metrics.registry.emitToString()) \(warnings())")
        nextWindow()
        #expect(try await get(with: rogue.certificate, key: rogue.key) == false)
        try await waitUntil("the other CA's certificate's refusal is counted") { refusedInAll() == 2 }
        #expect(refused("other_ca") == 1, "\(server.metrics.registry.emitToString()) \(warnings())")
        nextWindow()
        #expect(try await get(with: scratch.path("future.pem")) == false)
        try await waitUntil("the early certificate's refusal is counted") { refusedInAll() == 3 }
        #expect(refused("not_yet_valid") == 1, "\(server.metrics.registry.emitToString()) \(warnings())")
        nextWindow()
        #expect(try await get(with: scratch.path("valid.pem")), "the valid certificate gets its answer")
        let reasons = warnings().map { "\($0.metadata["reason"] ?? "")" }
        #expect(warnings().allSatisfy { "\($0.message)" == "TLS handshake refused" }, "\(warnings())")
        #expect(
            reasons == [
                "the client certificate of 'home-3' has expired: valid until \(expiredAt.formatted(.iso8601))",
                "the client certificate of 'home-1' is not signed by the client CA",
                "the client certificate of 'home-3' is not valid yet: valid from "
                    + "\(second.addingTimeInterval(86_400).formatted(.iso8601))",
            ],
            "\(reasons)"
        )
        #expect(warnings().allSatisfy { "\($0.metadata["peer"] ?? "")".hasPrefix("127.0.0.1:") })
        #expect(!logs.entries.contains { "\($0)".contains("BEGIN") }, "no certificate in the logs")

        // A bridge retrying its expired certificate 20 times within the window: one warning, then one summary of
        // the other 19 once the window is over; each is counted.
        logs.clear()
        for _ in 1...20 { #expect(try await get(with: scratch.path("expired.pem")) == false) }
        try await waitUntil("the 20 refusals are counted") { refused("expired") == 21 }
        #expect(warnings().count == 1, "the first at once, the rest counted: \(warnings())")
        try await clock.waitForSleepers(1)
        nextWindow()
        try await waitUntil("the summary is logged when the window ends") { warnings().count == 2 }
        let summary = "\(warnings()[1].message)"
        #expect(
            summary == "19 more refused TLS handshakes from 127.0.0.1 in the last 60 s: the client certificate of "
                + "'home-3' has expired: valid until \(expiredAt.formatted(.iso8601)) (19 times)",
            "\(summary)"
        )
        #expect(warnings()[1].metadata["count"] == "19")
        withExtendedLifetime(otherCA) {}
        running.cancel()
        _ = await running.result
        refusals.cancel()
        _ = await refusals.result
    }
}
