import ArgumentParser
import CareHub
import CareStore
import Foundation

/// What `hub samples release` and `hub samples reject` take: the reading (its bridge, patient and id), why and
/// who. The hub takes one decision per reading and refuses one on a reading its bridge decided on first.
struct HubSampleDecisionOptions: ParsableArguments {
    @OptionGroup var database: HubDatabaseOptions

    @Option(name: .long, help: ArgumentHelp("The bridge holding it.", valueName: "name"))
    var bridge: String

    @Option(name: .long, help: ArgumentHelp("Its patient.", valueName: "id"))
    var patient: String

    @Option(name: .long, help: ArgumentHelp("Why.", valueName: "text"))
    var reason: String

    @Option(name: .long, help: ArgumentHelp("Who decided.", valueName: "name"))
    var by: String

    @Argument(help: "The reading's id (a UUID: `carebridge hub samples list`).")
    var sample: String

    func validate() throws {
        guard UUID(uuidString: sample) != nil else {
            throw ValidationError("'\(sample)' is not a reading's id (a UUID)")
        }
        guard !reason.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("--reason is empty") }
        guard !by.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("--by is empty") }
    }

    /// Puts the decision on the hub and says so.
    func decide(_ verdict: QuarantineDecision.Verdict) async throws {
        let id = UUID(uuidString: sample)!
        let sequence = try await database.withStore(logger: CLILogging.logger) { store in
            try await store.decideQuarantined(
                bridge: bridge,
                patient: patient,
                sample: id,
                verdict: verdict,
                reason: reason,
                by: by
            )
        }
        print("\(verdict.rawValue) of \(sample) on \(bridge) put on the hub (change \(sequence))")
    }
}
