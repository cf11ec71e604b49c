import ArgumentParser
import CareHub
import Foundation
import Logging
import PostgresNIO

/// `carebridge hub …`: the hub many bridges sync to, on PostgreSQL.
struct Hub: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the hub that bridges sync their readings to (PostgreSQL), enrol bridges, show their status.",
        discussion: """
            The hub keeps what many bridges send in PostgreSQL: each bridge has its own token (printed once by \
            `hub enrol`; the hub keeps only its hash) or client certificate (`hub enrol --csr`) and may write only \
            for the patients it is enrolled for. \
            Bridges push with `carebridge sync push` or `carebridge run --hub`. See docs/hub.md.

            The database is --database postgres://USER@HOST:PORT/DATABASE (?sslmode=disable|prefer|require|\
            verify-ca|verify-full, ?sslrootcert=CA-FILE, ?host=/socket/dir for a Unix socket), or a primary and its \
            replicas, \
            postgres://USER@HOST1:PORT1,HOST2:PORT2/DATABASE (?target_session_attrs=read-write|primary): the hub \
            writes to the first writable one and follows a failover. Its password comes from --database-password-file, or from a libpq \
            password file (PGPASSFILE, else ~/.pgpass); a password in the address is refused. A server on another \
            machine is reached over TLS by default (require: its certificate verified against sslrootcert, else the \
            system's CAs, and for its host name).

            Examples:
              carebridge hub serve --database postgres://carebridge@localhost/hub \\
                  --tls-cert cert.pem --tls-key key.pem
              carebridge hub status --database postgres://carebridge@localhost/hub
            """,
        subcommands: [
            HubServe.self, HubEnrol.self, HubClientCA.self, HubStatus.self, HubPlan.self, HubAlerts.self,
            HubSamples.self, HubUsers.self,
        ]
    )
}

/// Where the hub's database is and how its password is found (every `hub` subcommand).
struct HubDatabaseOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The hub's PostgreSQL, postgres://USER@HOST:PORT[,HOST:PORT…]/DATABASE (no password).",
            valueName: "url"
        )
    )
    var database: String

    @Option(
        name: .customLong("database-password-file"),
        help: ArgumentHelp("A file whose first line is the database password (else PGPASSFILE).", valueName: "file")
    )
    var passwordFile: String?

    @Option(
        name: .customLong("database-timeout"),
        help: ArgumentHelp(
            "Seconds one database operation may take before it fails (a bridge hears 503 and retries; 1–86400).",
            valueName: "seconds"
        )
    )
    var timeout: Int = 10

    /// The store on the database's writable server (``HubPrimary``, to be run), with this deadline for each
    /// operation and each probe.
    func store(_ database: HubDatabase, logger: Logger) -> HubStore {
        HubStore(
            primary: HubPrimary(database: database, probeTimeout: .seconds(timeout), logger: logger),
            deadline: .seconds(timeout),
            logger: logger
        )
    }

    func validate() throws {
        try NumericOption.check(timeout, "--database-timeout", in: 1...Int(NumericOption.day))
    }

    /// The database's address and password, or a usage error.
    func resolved() throws -> HubDatabase {
        if let passwordFile { SecretFile.warnIfShared(passwordFile, option: "--database-password-file") }
        do {
            return try HubDatabase(url: database, passwordFile: passwordFile)
        } catch {
            throw ValidationError("--database: \(error.message)")
        }
    }

    /// Runs `body` with the hub's store, its schema migrated; a database failure exits 74 with its message.
    func withStore<Result: Sendable>(
        logger: Logger,
        _ body: @Sendable (HubStore) async throws -> Result
    ) async throws -> Result {
        let database = try resolved()
        do {
            return try await database.withStore(deadline: .seconds(timeout), logger: logger) { store in
                try await store.migrate()
                return try await body(store)
            }
        } catch let error as HubError {
            Output.error("hub database \(database.description): \(error)")
            throw ExitCode(error.code == .invalid ? StoreExit.usage : StoreExit.storeUnavailable)
        }
    }
}
