import ArgumentParser
import CareHub
import Foundation

/// `carebridge hub samples release --bridge B --patient P SAMPLE --reason R --by NAME`.
struct HubSamplesRelease: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "release",
        abstract: "Release a bridge's quarantined reading; the bridge releases it at its next sync and sends it up.",
        discussion: """
            The reading is named by its id on the bridge (`carebridge samples --quarantined`). The bridge releases \
            it as `carebridge samples release` does, with this reason and person, or refuses it (not quarantined, \
            not this patient's) and says so (`hub status`: REFUSED).

            Examples:
              carebridge hub samples release --database postgres://hub@db/hub \\
                --bridge home-17 --patient ann --reason "checked: right" \\
                --by "Nurse Kim" 3f2a9c1e-0b7d-4c55-9a51-6f0e2d1c8b44
            """
    )

    @OptionGroup var database: HubDatabaseOptions

    @Option(name: .long, help: ArgumentHelp("The bridge holding it.", valueName: "name"))
    var bridge: String

    @Option(name: .long, help: ArgumentHelp("Its patient.", valueName: "id"))
    var patient: String

    @Option(name: .long, help: ArgumentHelp("Why it is released.", valueName: "text"))
    var reason: String

    @Option(name: .long, help: ArgumentHelp("Who decided.", valueName: "name"))
    var by: String

    @Argument(help: "The reading's id (a UUID).")
    var sample: String

    func validate() throws {
        guard UUID(uuidString: sample) != nil else {
            throw ValidationError("'\(sample)' is not a reading's id (a UUID)")
        }
        guard !reason.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("--reason is empty") }
    }

    func run() async throws {
        let id = UUID(uuidString: sample)!
        let sequence = try await database.withStore(logger: CLILogging.logger) { store in
            try await store.releaseSample(bridge: bridge, patient: patient, sample: id, reason: reason, by: by)
        }
        print("release of \(sample) on \(bridge) put on the hub (change \(sequence))")
    }
}
