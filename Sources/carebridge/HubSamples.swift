import ArgumentParser

/// `carebridge hub samples …`: the readings bridges hold in quarantine, and the care team's decisions on them.
struct HubSamples: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "samples",
        abstract: "List the readings bridges hold in quarantine; release or reject one (the decision goes down).",
        discussion: """
            Examples:
              carebridge hub samples list --database postgres://hub@db/hub --patient ann
              carebridge hub samples release --database postgres://hub@db/hub \\
                --bridge home-17 --patient ann --reason "checked" \\
                --by "Nurse Kim" SAMPLE-ID
              carebridge hub samples reject --database postgres://hub@db/hub \\
                --bridge home-17 --patient ann --reason "a parcel on the scale" \\
                --by "Nurse Kim" SAMPLE-ID
            """,
        subcommands: [HubSamplesList.self, HubSamplesRelease.self, HubSamplesReject.self]
    )
}
