import ArgumentParser

/// `carebridge hub alerts …`: the care team's side of the bridges' alerts.
struct HubAlerts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alerts",
        abstract: "Acknowledge an alert a bridge raised; the acknowledgement goes down to the bridge.",
        subcommands: [HubAlertsAcknowledge.self]
    )
}
