import CareHub
import Foundation
import InMemoryLogging
import Logging
import PostgresNIO
import TestSupport
import Testing

/// The hub's link to PostgreSQL: TLS with the server's certificate verified unless the database is on this machine,
/// libpq's `sslmode` and `sslrootcert`, and a warning for a link that may carry readings across the network in plain
/// text.
extension HubDatabaseTests {
    @Test(
        "the default sslmode: TLS for a server on another machine, prefer for a socket or loopback",
        arguments: [
            ("postgres://hub@db.example/hub", .require),
            ("postgres://hub@10.0.0.5:5433/hub", .require),
            ("postgres://hub@127.0.0.1,db2.example/hub", .require),
            ("postgres://hub@localhost/hub", .prefer),
            ("postgres://hub@127.0.0.1:6543/hub", .prefer),
            ("postgres://hub@[::1]/hub", .prefer),
            ("postgres:///hub", .prefer),
            ("postgres://hub@db.example/hub?host=/run/postgresql", .prefer),
            ("postgres://hub@db.example/hub?sslmode=verify-full", .require),
            ("postgres://hub@db.example/hub?sslmode=verify-ca", .verifyCA),
            ("postgres://hub@localhost/hub?sslmode=require", .require),
        ] as [(String, HubDatabase.SSLMode)]
    )
    func theDefaultIsTLSForAServerOnAnotherMachine(url: String, mode: HubDatabase.SSLMode) throws {
        let database = try HubDatabase(url: url)
        #expect(database.sslMode == mode)
        #expect(database.plainTextWarning == nil, "\(url)")
    }

    @Test func plainTextToAnotherMachineIsAllowedWhenAskedForWithAWarning() throws {
        let disabled = try HubDatabase(url: "postgres://hub@db1.example,127.0.0.1:5433/hub?sslmode=disable")
        #expect(disabled.sslMode == .disable)
        let warning = try #require(disabled.plainTextWarning)
        #expect(warning.contains("PostgreSQL at db1.example:5432 without TLS"), "\(warning)")
        #expect(warning.contains("readings cross the network in plain text"), "\(warning)")
        #expect(!warning.contains("127.0.0.1"), "only the servers across the network: \(warning)")
        let preferred = try HubDatabase(url: "postgres://hub@db.example/hub?sslmode=prefer")
        #expect(preferred.plainTextWarning?.contains("without TLS (sslmode=prefer") == true)
        #expect(try HubDatabase(url: "postgres://hub@localhost/hub?sslmode=disable").plainTextWarning == nil)
    }

    @Test func anUnknownModeOrAnUnreadableCAFileIsRefusedNamingIt() throws {
        do throws(HubError) {
            _ = try HubDatabase(url: "postgres://hub@db.example/hub?sslmode=allow")
            Issue.record("sslmode=allow was taken")
        } catch {
            #expect(error.code == .configuration)
            #expect(error.message.contains("sslmode 'allow' is not disable, prefer, require, verify-ca or verify-full"))
        }
        let scratch = try ScratchDirectory("cb-rootcert-")
        let missing = scratch.path("no-such-ca.pem")
        do throws(HubError) {
            _ = try HubDatabase(url: "postgres://hub@db.example/hub?sslrootcert=\(missing)")
            Issue.record("a missing CA file was taken")
        } catch {
            #expect(error.code == .configuration)
            #expect(error.message.contains("the database's CA file \(missing) (sslrootcert)"), "\(error.message)")
        }
        #expect(try HubDatabase(url: "postgres://hub@db.example/hub?sslrootcert=system").rootCertificateFile == nil)
    }

    /// A real PostgreSQL with `ssl = on` and a certificate for 127.0.0.1 from a test CA: the hub given that CA
    /// (`sslrootcert`) connects over TLS (PostgreSQL's `pg_stat_ssl` says so); given another CA it is refused, and
    /// the hub's log and the failed operation's error name the server, the certificate problem and the CA file,
    /// never the password.
    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func theHubReachesPostgreSQLOverVerifiedTLSAndRefusesAServerOfAnotherCA() async throws {
        let scratch = try ScratchDirectory("cb-pgtls-")
        let authority = try TestCertificateAuthority()
        let otherAuthority = try TestCertificateAuthority(name: "Another CA")
        let issued = try authority.issueServer(named: "postgres", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"])
        let postgres = try await PostgresServer(directory: scratch.url)
        try postgres.serveTLS(certificate: issued.certificate, key: issued.key)
        try await postgres.start()
        let passwordFile = scratch.path("password")
        try ScratchDirectory.writeSecret("\(postgres.password)\n", to: passwordFile)
        let address = "postgres://carehub@127.0.0.1:\(postgres.port)/postgres"
        let logs = InMemoryLogHandler()
        let logger = Logger(label: "hub", factory: { _ in logs })

        let verified = try HubDatabase(
            url: "\(address)?sslmode=require&sslrootcert=\(authority.certificate)",
            passwordFile: passwordFile
        )
        let migrated = try await verified.withStore(deadline: .seconds(60), logger: logger) { try await $0.migrate() }
        #expect(!migrated.isEmpty, "the hub's probe and client both connected over TLS")
        let sessions = try await verified.withClient(logger: logger) { client in
            var ssl: [Bool] = []
            let rows = try await client.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
            for try await value in rows.decode(Bool.self) { ssl.append(value) }
            return ssl
        }
        #expect(sessions == [true], "PostgreSQL reports the hub's session as TLS")

        let foreign = try HubDatabase(
            url: "\(address)?sslmode=verify-full&sslrootcert=\(otherAuthority.certificate)",
            passwordFile: passwordFile
        )
        let primary = HubPrimary(database: foreign, probeTimeout: .seconds(30), logger: logger)
        let store = HubStore(primary: primary, deadline: .seconds(2), logger: logger)
        let running = Task { try await primary.run() }
        defer { running.cancel() }
        let problem =
            "PostgreSQL at 127.0.0.1:\(postgres.port): its TLS certificate failed verification against the CA in "
            + "\(otherAuthority.certificate) (sslrootcert)"
        try await waitUntil("the hub logs why it cannot connect") {
            logs.entries.contains { "\($0.message)" == "hub database: cannot connect" }
        }
        let warnings = logs.entries.filter { "\($0.message)" == "hub database: cannot connect" }
        #expect(warnings.count == 1 && warnings.first?.level == .warning, "\(warnings)")
        #expect(warnings.first?.metadata["problem"].map { "\($0)" }?.hasPrefix(problem) == true, "\(warnings)")
        do throws(HubError) {
            _ = try await store.status()
            Issue.record("the hub read a server its CA does not vouch for")
        } catch {
            #expect(error.code == .database)
            #expect(error.message.contains(problem), "\(error.message)")
            #expect(!error.description.contains(postgres.password))
        }
        #expect(!logs.entries.contains { "\($0)".contains(postgres.password) }, "no password in the logs")
        running.cancel()
        _ = await running.result
        await postgres.stop()
    }
}
