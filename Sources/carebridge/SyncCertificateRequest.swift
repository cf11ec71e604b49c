import ArgumentParser
import CareHub
import Foundation

/// `carebridge sync certificate-request`: the bridge's key for a client certificate, made here and kept here, and
/// the request the hub's operator signs (`carebridge hub enrol --csr`).
struct SyncCertificateRequest: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "certificate-request",
        abstract: "Make this bridge's key (owner-only) and a certificate request for the hub to sign.",
        discussion: """
            The key never leaves the bridge: only the request (the public key and the bridge's name, signed with \
            the key) goes to the hub's operator, who enrols the bridge with it (`carebridge hub enrol --csr`) and \
            sends back the certificate. An existing key file is never overwritten. A new request and enrolment \
            replaces the bridge's certificate at the hub; the old one stops working at once.

            Examples:
              carebridge sync certificate-request --bridge home-17 \\
                  --key /etc/carebridge/hub-client.key --csr home-17.csr
            """
    )

    @Option(name: .long, help: ArgumentHelp("The bridge's name at the hub.", valueName: "name"))
    var bridge: String

    @Option(name: .long, help: ArgumentHelp("Where the new private key goes (mode 0600).", valueName: "file"))
    var key: String

    @Option(name: .long, help: ArgumentHelp("Where the certificate request goes (PEM).", valueName: "file"))
    var csr: String

    func run() async throws {
        do {
            try HubCertificateRequest(bridge: bridge).write(key: key, request: csr)
        } catch {
            Output.error("\(error)")
            throw ExitCode(error.code == .configuration ? StoreExit.storeUnavailable : StoreExit.usage)
        }
        print("key in \(key); send \(csr) to the hub's operator (carebridge hub enrol --csr)")
    }
}
