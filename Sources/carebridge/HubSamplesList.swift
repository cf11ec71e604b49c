import ArgumentParser
import BridgeFoundation
import CareHub
import CareStore
import Foundation

/// `carebridge hub samples list [--patient P…] [--all] [--json]`.
struct HubSamplesList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the readings bridges sent in quarantine, held apart from the record, and their decisions.",
        discussion: """
            STATE: held (waiting for a decision), release sent / reject sent (decided at the hub, the bridge has \
            not answered yet), released (in the record), rejected (deleted on the bridge), refused (the bridge \
            had decided first; the reason says how). Without --all only the held and sent ones are listed. JSON \
            (--json): [{"bridge", "patient", "id", "state", "sample" (as `samples --json`, with "quarantine": \
            why), "receivedAt", "decision": {"verdict", "reason", "by", "at", "change"}, "refused"}].

            Examples:
              carebridge hub samples list --database postgres://hub@db/hub --patient ann
            """
    )

    @OptionGroup var database: HubDatabaseOptions

    @Option(name: .long, help: ArgumentHelp("Only this patient's (repeat for more).", valueName: "id"))
    var patient: [String] = []

    @Flag(name: .long, help: "Also the readings decided on (released, rejected, refused).")
    var all = false

    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    func run() async throws {
        let readings = try await database.withStore(logger: CLILogging.logger) { store in
            try await store.quarantined(patients: patient.isEmpty ? nil : Set(patient), openOnly: !all)
        }
        if json {
            print(JSONValue.array(readings.map(\.json)).serialized(pretty: Output.isTerminal))
            return
        }
        guard !readings.isEmpty else {
            print(all ? "no readings in quarantine" : "no readings waiting for a decision")
            return
        }
        var table = Table(["BRIDGE", "PATIENT", "READING", "VALUE", "MEASURED", "WHY", "STATE", "DECISION"])
        for reading in readings {
            let sample = reading.sample.objectValue ?? [:]
            let value = sample["value"]?.doubleValue.map { "\($0) \(sample["unit"]?.stringValue ?? "")" } ?? "-"
            var decided = reading.decision.map { "\($0.verdict.rawValue) by \($0.by): \($0.reason)" } ?? "-"
            if case .refused(let reason) = reading.state { decided += " — refused: \(reason)" }
            table.append([
                reading.bridge, reading.patient, reading.id,
                "\(sample["type"]?.stringValue ?? "?") \(value)", sample["start"]?.stringValue ?? "?",
                sample["quarantine"]?.stringValue ?? "-", reading.state.label, decided,
            ])
        }
        print(table.render())
    }
}
