import ArgumentParser
import CareHub
import CareWeb
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import UnixSignals

/// `carebridge hub serve`: the sync endpoint over HTTPS, on the hub's PostgreSQL.
struct HubServe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract:
            "Take bridges' batches at POST /sync/v1/batches and serve the care team's dashboard (HTTPS with --tls-cert and --tls-key).",
        discussion: """
            Migrates the hub's schema, then listens. A batch is stored in one transaction, each message once by \
            its id; a bridge writing for a patient it is not enrolled for gets 403 and nothing is stored. While \
            PostgreSQL is unreachable the hub answers 503 and bridges retry. Logs say which bridge and patients, \
            never a token or the database password. With --client-ca, a bridge may show a client certificate \
            instead of a token (`hub enrol --csr`): one from another CA or expired fails the TLS handshake, one \
            replaced by a later enrolment gets 401.

            The same address serves the care team's dashboard (/login, then /overview): every patient a user is \
            linked to (`carebridge hub users add`), across all bridges, with the latest readings and open alerts.

            Examples:
              carebridge hub serve --database postgres://carehub@db.internal/carehub \\
                  --database-password-file /etc/carebridge/db-password \\
                  --listen 0.0.0.0:8443 \\
                  --tls-cert /etc/carebridge/hub.pem --tls-key /etc/carebridge/hub.key

            The process runs until SIGINT or SIGTERM and then finishes open requests.
            """
    )

    @OptionGroup var database: HubDatabaseOptions
    @OptionGroup var web: WebOptions

    @Option(
        name: .long,
        help: ArgumentHelp("Address and port to listen on (port 0: any free port).", valueName: "addr:port")
    )
    var listen = "127.0.0.1:8490"

    @Option(
        name: .customLong("client-ca"),
        help: ArgumentHelp(
            "PEM CA certificate (`hub client-ca`): check the client certificates bridges show (needs --tls-cert).",
            valueName: "file"
        )
    )
    var clientCA: String?

    func validate() throws {
        if clientCA != nil, web.tlsCertificate == nil { throw ValidationError("--client-ca needs --tls-cert") }
    }

    func run() async throws {
        var configuration = try web.configuration(listen: listen, option: "--listen")
        configuration.clientCertificateAuthority = clientCA
        let hubDatabase = try database.resolved()
        var logger = CLILogging.logger
        if ProcessInfo.processInfo.environment["CAREBRIDGE_LOG_LEVEL"] == nil { logger.logLevel = .info }
        let store = database.store(hubDatabase, logger: logger)
        let server = HubServer(
            store: store,
            configuration: configuration,
            dashboard: CareTeamDashboard(
                users: store,
                overview: store,
                configuration: configuration,
                zone: try GlobalOptions.resolvedTimeZone(option: nil),
                logger: logger
            ),
            logger: logger
        )
        let services: [any Service]
        do {
            services = try server.services { url in
                FileHandle.standardOutput.write(Data("hub listening on \(url)\n".utf8))
            }
        } catch {
            Output.error("\(error)")
            throw ExitCode(StoreExit.usage)
        }
        let group = ServiceGroup(
            configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        )
        do {
            try await group.run()
        } catch let error as HubError {
            Output.error("hub database \(hubDatabase.description): \(error)")
            throw ExitCode(StoreExit.storeUnavailable)
        }
    }
}
