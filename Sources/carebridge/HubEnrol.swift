import ArgumentParser
import CareHub
import Foundation

/// `carebridge hub enrol`: a bridge and the patients it may write for; its token, once, or its client certificate.
struct HubEnrol: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enrol",
        abstract: "Enrol a bridge for patients and print its token (once; the hub keeps only its hash).",
        discussion: """
            A new bridge gets a token, printed once to standard output: put it in a file on the bridge \
            (`carebridge sync push --token-file`). Enrolling a bridge again adds patients and keeps its token, \
            unless --new-token (the old token then stops working).

            With --csr (a request the bridge made: `carebridge sync certificate-request`), the bridge's credential \
            becomes a client certificate instead: the hub's client CA (--client-ca-cert, --client-ca-key; \
            `carebridge hub client-ca` makes one) signs it for --days, it is printed to standard output, and the \
            hub keeps its SHA-256. Its token, or the certificate of an earlier --csr, stops working at once \
            (--new-token goes back to a token the same way). `hub serve --client-ca` checks the certificates.

            Examples:
              carebridge hub enrol --database postgres://carehub@db.internal/carehub \\
                  --bridge home-17 --patient alice --patient bob > home-17.token
              carebridge hub enrol --database postgres://carehub@db.internal/carehub \\
                  --bridge home-17 --patient alice --csr home-17.csr \\
                  --client-ca-cert /etc/carebridge/clients-ca.pem \\
                  --client-ca-key /etc/carebridge/clients-ca.key > home-17.pem
            """
    )

    @OptionGroup var database: HubDatabaseOptions

    @Option(name: .long, help: ArgumentHelp("The bridge's name (letters, digits, '-', '_', '.').", valueName: "name"))
    var bridge: String

    @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp("Patient ids it may write for.", valueName: "id"))
    var patient: [String] = []

    @Flag(name: .customLong("new-token"), help: "Issue a new token for an enrolled bridge.")
    var newToken = false

    @Option(
        name: .long,
        help: ArgumentHelp("The bridge's certificate request (PEM): issue a client certificate.", valueName: "file")
    )
    var csr: String?

    @Option(
        name: .customLong("client-ca-cert"),
        help: ArgumentHelp("The hub's client CA certificate (PEM), with --csr.", valueName: "file")
    )
    var clientCACertificate: String?

    @Option(
        name: .customLong("client-ca-key"),
        help: ArgumentHelp("The hub's client CA key (PEM), with --csr.", valueName: "file")
    )
    var clientCAKey: String?

    @Option(name: .long, help: ArgumentHelp("How long the certificate is valid, in days.", valueName: "days"))
    var days = 365

    func validate() throws {
        if csr == nil, clientCACertificate != nil || clientCAKey != nil {
            throw ValidationError("--client-ca-cert and --client-ca-key go with --csr")
        }
        if csr != nil, clientCACertificate == nil || clientCAKey == nil {
            throw ValidationError("--csr needs --client-ca-cert and --client-ca-key")
        }
        if csr != nil, newToken { throw ValidationError("--csr or --new-token: a bridge has one credential") }
        try NumericOption.check(days, "--days", in: 1...3650)
    }

    func run() async throws {
        var certificate: HubClientCertificate?
        if let csr, let clientCACertificate, let clientCAKey {
            SecretFile.warnIfShared(clientCAKey, option: "--client-ca-key")
            do {
                let authority = try HubCertificateAuthority(certificateFile: clientCACertificate, keyFile: clientCAKey)
                let request = try SecretFile.read(csr, what: "--csr", secret: "certificate request")
                let now = Date()
                certificate = try authority.issue(
                    requestPEM: request,
                    bridge: bridge,
                    validFrom: now.addingTimeInterval(-300),
                    validUntil: now.addingTimeInterval(Double(days) * 86_400)
                )
            } catch let error as HubError {
                Output.error("\(error)")
                throw ExitCode(error.code == .configuration ? StoreExit.noInput : StoreExit.invalidData)
            }
        }
        let token = try await database.withStore(logger: CLILogging.logger) { [certificate] store in
            try await store.enrol(bridge: bridge, patients: patient, newToken: newToken, certificate: certificate)
        }
        if let certificate {
            print(certificate.pem, terminator: "")
            Output.error(
                "bridge \(bridge): client certificate SHA-256 \(certificate.fingerprint), valid until "
                    + "\(certificate.validUntil.formatted(.iso8601)); its earlier credential no longer works"
            )
        } else if let token {
            print(token.text)
        } else {
            Output.error("bridge \(bridge) is enrolled for \(patient.joined(separator: ", ")); its token is unchanged")
        }
    }
}
