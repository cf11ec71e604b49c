import ArgumentParser
import CareHub
import Foundation

/// `carebridge hub enrol`: a bridge and the patients it may write for; its token, once.
struct HubEnrol: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enrol",
        abstract: "Enrol a bridge for patients and print its token (once; the hub keeps only its hash).",
        discussion: """
            A new bridge gets a token, printed once to standard output: put it in a file on the bridge \
            (`carebridge sync push --token-file`). Enrolling a bridge again adds patients and keeps its token, \
            unless --new-token (the old token then stops working).

            Examples:
              carebridge hub enrol --database postgres://carehub@db.internal/carehub \\
                  --bridge home-17 --patient alice --patient bob > home-17.token
            """
    )

    @OptionGroup var database: HubDatabaseOptions

    @Option(name: .long, help: ArgumentHelp("The bridge's name (letters, digits, '-', '_', '.').", valueName: "name"))
    var bridge: String

    @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp("Patient ids it may write for.", valueName: "id"))
    var patient: [String] = []

    @Flag(name: .customLong("new-token"), help: "Issue a new token for an enrolled bridge.")
    var newToken = false

    func run() async throws {
        let token = try await database.withStore(logger: CLILogging.logger) { store in
            try await store.enrol(bridge: bridge, patients: patient, newToken: newToken)
        }
        if let token {
            print(token.text)
        } else {
            Output.error("bridge \(bridge) is enrolled for \(patient.joined(separator: ", ")); its token is unchanged")
        }
    }
}
