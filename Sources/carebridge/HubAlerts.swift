import ArgumentParser

/// `carebridge hub alerts …`: the care team's side of the bridges' alerts.
struct HubAlerts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alerts",
        abstract: "Acknowledge an alert a bridge raised; the acknowledgement goes down to the bridge.",
        discussion: """
            Examples:
              carebridge hub alerts acknowledge --database postgres://hub@db/hub \\
                --bridge home-17 12 --by "Nurse Kim"
            """,
        subcommands: [HubAlertsAcknowledge.self]
    )
}
