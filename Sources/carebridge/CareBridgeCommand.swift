import ArgumentParser

@main
struct CareBridgeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "carebridge",
        abstract: "Bridge Bluetooth LE health devices to a CareKit-style care plan.",
        discussion: """
            CareBridge decodes what scales, thermometers, heart-rate straps, blood-pressure cuffs, glucose \
            meters and pulse oximeters send, normalises it into quantity samples, and completes the matching \
            assessment events of a care plan.
            """,
        subcommands: [
            Decode.self, Plan.self, Ingest.self, Events.self, Samples.self, Adherence.self, Tasks.self, Complete.self,
            Uncomplete.self, Replay.self, Recording.self, Export.self, Adapters.self, Scan.self, Run.self, Record.self,
            SystemdUnit.self, Outbox.self, Alerts.self, InsightsCommand.self, Report.self, Devices.self,
            Import.self,
        ]
    )
}
