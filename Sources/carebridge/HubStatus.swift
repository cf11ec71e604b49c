import ArgumentParser
import BridgeFoundation
import CareHub
import Foundation

/// `carebridge hub status`: every bridge, its patients, last contact and what the hub holds from it.
struct HubStatus: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the enrolled bridges: patients, last contact, backlog, rows received.",
        discussion: """
            BACKLOG is what the bridge said it still held with its last batch. CHANGES: plans, acknowledgements \
            and quarantine decisions from the hub the bridge had not dealt with at its last sync; REFUSED: those it \
            refused (the hub's log says why). JSON (--json): [{"bridge", "patients", "enrolledAt", "lastContact", \
            "backlog", "samples", "outcomes", "alerts", "lastSampleSequence", "changesWaiting", \
            "changesRefused"}], times in UTC.

            Examples:
              carebridge hub status --database postgres://carebridge@localhost/hub
            """
    )

    @OptionGroup var database: HubDatabaseOptions

    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    func run() async throws {
        let bridges = try await database.withStore(logger: CLILogging.logger) { store in try await store.status() }
        if json {
            print(JSONValue.array(bridges.map(\.json)).serialized(pretty: Output.isTerminal))
            return
        }
        guard !bridges.isEmpty else {
            print("no bridges enrolled (carebridge hub enrol)")
            return
        }
        let format = ISO8601DateFormatter()
        var table = Table([
            "BRIDGE", "PATIENTS", "LAST CONTACT", "BACKLOG", "SAMPLES", "OUTCOMES", "ALERTS", "CHANGES", "REFUSED",
        ])
        for bridge in bridges {
            table.append([
                bridge.name, bridge.patients.joined(separator: ","),
                bridge.lastContact.map { format.string(from: $0) } ?? "never", bridge.backlog.map { "\($0)" } ?? "-",
                "\(bridge.samples)",
                "\(bridge.outcomes)", "\(bridge.alerts)", "\(bridge.changesWaiting)", "\(bridge.changesRefused)",
            ])
        }
        print(table.render())
    }
}
