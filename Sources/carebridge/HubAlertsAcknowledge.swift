import ArgumentParser
import CareHub

/// `carebridge hub alerts acknowledge --bridge B ID --by NAME`.
struct HubAlertsAcknowledge: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "acknowledge",
        abstract: "Acknowledge a bridge's alert at the hub; the bridge records it at its next sync.",
        discussion: """
            The alert is the bridge's (its id as the bridge's `carebridge alerts` shows it). The hub refuses an alert \
            the bridge has already withdrawn or had acknowledged (exit 64, saying when and why). If the bridge \
            withdraws it, or it trips again on another reading, before the acknowledgement arrives, the bridge \
            refuses it and says so (`hub status`: REFUSED): the bridge owns an alert's raising and withdrawal.

            Examples:
              carebridge hub alerts acknowledge --database postgres://hub@db/hub \\
                --bridge home-17 12 --by "Nurse Kim"
            """
    )

    @OptionGroup var database: HubDatabaseOptions

    @Option(name: .long, help: ArgumentHelp("The bridge that raised it.", valueName: "name"))
    var bridge: String

    @Option(name: .long, help: ArgumentHelp("Who acknowledges it.", valueName: "name"))
    var by: String

    @Argument(help: "The alert's id on the bridge.")
    var alert: Int

    func run() async throws {
        let (sequence, patient) = try await database.withStore(logger: CLILogging.logger) { store in
            try await store.acknowledgeAlert(bridge: bridge, alert: alert, by: by)
        }
        print("alert \(alert) of \(bridge) (patient \(patient)) acknowledged at the hub (change \(sequence))")
    }
}
