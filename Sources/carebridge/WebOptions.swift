import ArgumentParser
import CareStore
import CareWeb
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

/// Where the care app listens and its TLS files (`serve`, and `run --http`).
struct WebOptions: ParsableArguments {
    @Option(
        name: .customLong("tls-cert"),
        help: ArgumentHelp("PEM certificate chain: serve the care app over HTTPS (with --tls-key).", valueName: "file")
    )
    var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("PEM private key of --tls-cert.", valueName: "file"))
    var tlsKey: String?

    /// The configuration for `listen` (`ADDR:PORT`), or a usage error naming the option.
    func configuration(listen: String, option: String) throws -> WebConfiguration {
        guard let (host, port) = WebConfiguration.parseListen(listen) else {
            throw ValidationError("\(option) '\(listen)' is not ADDR:PORT (for example 127.0.0.1:8480 or 0.0.0.0:8480)")
        }
        var configuration = WebConfiguration(host: host, port: port)
        switch (tlsCertificate, tlsKey) {
        case (nil, nil): break
        case (let certificate?, let key?):
            for (name, path) in [("--tls-cert", certificate), ("--tls-key", key)]
            where !FileManager.default.isReadableFile(atPath: path) {
                throw ValidationError("\(name) \(path): no such file, or not readable by this user")
            }
            configuration.tls = (certificate, key)
        default:
            throw ValidationError("--tls-cert and --tls-key go together")
        }
        if configuration.tls == nil, !["127.0.0.1", "::1", "localhost"].contains(host) {
            Output.error(
                "warning: the care app at \(listen) is served without TLS; passwords and health data cross the network "
                    + "in clear text. Give --tls-cert and --tls-key."
            )
        }
        return configuration
    }

    /// The app's services over `store`. A store without users (nobody could sign in) is refused, unless
    /// `setup` is allowed (`serve`, in a terminal): then a one-time setup link is printed to standard output, once,
    /// and only its token's hash is kept. `run --http` refuses: a daemon's output is a log.
    static func services(
        store: CareStore,
        configuration: WebConfiguration,
        logger: Logger,
        setup allowsSetup: Bool = false
    ) async throws -> [any Service] {
        do {
            var setup: (gate: SetupGate, token: String)?
            if try await !store.hasUsers() {
                guard allowsSetup else {
                    Output.error(
                        "the care app has no users yet, so nobody could sign in. Add one first: "
                            + "carebridge users add NAME --name \"Full Name\" --role admin "
                            + "(or start `carebridge serve` once for its setup link)"
                    )
                    throw ExitCode(StoreExit.usage)
                }
                setup = SetupGate.make()
            }
            let app = try CareWebApp(store: store, configuration: configuration, logger: logger, setup: setup?.gate)
            let token = setup?.token
            return try app.services { url in
                var text = "care app listening on \(url)\n"
                if let token {
                    text +=
                        "no users yet: open \(url)/setup?token=\(token) to create the admin account "
                        + "(this link works once and is not shown again)\n"
                }
                FileHandle.standardOutput.write(Data(text.utf8))
            }
        } catch let error as CareStoreError {
            throw StoreExit.fail(error)
        } catch let error as WebStartError {
            Output.error(error.description)
            throw ExitCode(StoreExit.usage)
        }
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the care app: today's plan, answers and the care team's patient list, in a browser.",
        discussion: """
            The app reads and writes the same store as the other commands; a reading that `run` or `replay` \
            stores completes its event on every open Today page within a second. People sign in as users of the \
            store (`carebridge users add`); each sees only the patients they are linked to. On a store without \
            users, serve prints a one-time setup link (once, to standard output; only its hash is kept): the \
            first visit with it creates the admin account, and the link then stops working.

            Examples:
              carebridge users add anna --name "Anna Weber" --role patient --sees anna \\
                  --password-file pw.txt
              carebridge serve
              carebridge serve --listen 0.0.0.0:8443 \\
                  --tls-cert /etc/carebridge/cert.pem --tls-key /etc/carebridge/key.pem

            The process runs until SIGINT or SIGTERM and then finishes open requests.

            \(StoreExit.help)
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions
    @OptionGroup var web: WebOptions

    @Option(
        name: .long,
        help: ArgumentHelp("Address and port to listen on (port 0: any free port).", valueName: "addr:port")
    )
    var listen = "127.0.0.1:8480"

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let configuration = try web.configuration(listen: listen, option: "--listen")
        var logger = CLILogging.logger
        if ProcessInfo.processInfo.environment["CAREBRIDGE_LOG_LEVEL"] == nil { logger.logLevel = .info }
        let store = try await storeOptions.open(zone: zone, mode: .existing, patients: .any)
        let services = try await WebOptions.services(
            store: store,
            configuration: configuration,
            logger: logger,
            setup: true
        )
        let group = ServiceGroup(
            configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        )
        try await group.run()
    }
}
