import ArgumentParser

/// `carebridge hub samples …`: decisions on a bridge's quarantined readings.
struct HubSamples: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "samples",
        abstract: "Release a reading a bridge holds in quarantine; the decision goes down to the bridge.",
        discussion: """
            Examples:
              carebridge hub samples release --database postgres://hub@db/hub \\
                --bridge home-17 --patient ann SAMPLE-ID --reason "checked" --by "Nurse Kim"
            """,
        subcommands: [HubSamplesRelease.self]
    )
}
