import ArgumentParser
import CareHub
import Foundation

/// `carebridge hub client-ca`: makes the CA that signs bridges' client certificates.
struct HubClientCA: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client-ca",
        abstract: "Make the hub's client CA (a P-256 key and its self-signed certificate) for bridges' certificates.",
        discussion: """
            `hub enrol --csr` signs bridges' requests with it and `hub serve --client-ca` trusts what it signed. \
            Keep the key with the hub's operator (it is written mode 0600 and never overwritten); only the \
            certificate goes to `hub serve`.

            Examples:
              carebridge hub client-ca --certificate /etc/carebridge/clients-ca.pem \\
                  --key /etc/carebridge/clients-ca.key
            """
    )

    @Option(name: .long, help: ArgumentHelp("Where the CA certificate goes (PEM).", valueName: "file"))
    var certificate: String

    @Option(name: .long, help: ArgumentHelp("Where the CA key goes (PEM, mode 0600).", valueName: "file"))
    var key: String

    @Option(name: .long, help: ArgumentHelp("The CA's common name.", valueName: "name"))
    var name = "CareBridge hub client CA"

    @Option(name: .long, help: ArgumentHelp("How long the CA is valid, in days.", valueName: "days"))
    var days = 3650

    func validate() throws {
        try NumericOption.check(days, "--days", in: 1...36500)
    }

    func run() async throws {
        do {
            try HubCertificateAuthority.create(name: name, days: days, certificateFile: certificate, keyFile: key)
        } catch {
            Output.error("\(error)")
            throw ExitCode(error.code == .configuration ? StoreExit.storeUnavailable : StoreExit.usage)
        }
        print("client CA in \(certificate) (give it to hub serve --client-ca); its key in \(key)")
    }
}
