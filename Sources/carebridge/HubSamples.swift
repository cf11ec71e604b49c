import ArgumentParser

/// `carebridge hub samples …`: decisions on a bridge's quarantined readings.
struct HubSamples: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "samples",
        abstract: "Release a reading a bridge holds in quarantine; the decision goes down to the bridge.",
        subcommands: [HubSamplesRelease.self]
    )
}
