import ArgumentParser
import CareStore

/// `carebridge hub samples release --bridge B --patient P SAMPLE --reason R --by NAME`.
struct HubSamplesRelease: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "release",
        abstract: "Release a bridge's quarantined reading; the bridge releases it at its next sync and sends it up.",
        discussion: """
            The reading is one its bridge sent in quarantine (`carebridge hub samples list`). The bridge releases \
            it as `carebridge samples release` does, with this reason and person, once; if it was released or \
            deleted on the bridge before the decision arrived, the bridge's decision stands and the hub's is \
            refused (`hub status`: REFUSED; `hub samples list` says why). A reading is decided once at the hub: a \
            second decision, or one on a reading the bridge has decided on, exits 64.

            Examples:
              carebridge hub samples release --database postgres://hub@db/hub \\
                --bridge home-17 --patient ann --reason "checked: right" \\
                --by "Nurse Kim" 3f2a9c1e-0b7d-4c55-9a51-6f0e2d1c8b44
            """
    )

    @OptionGroup var decision: HubSampleDecisionOptions

    func run() async throws { try await decision.decide(.release) }
}
