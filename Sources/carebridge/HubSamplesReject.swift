import ArgumentParser
import CareStore

/// `carebridge hub samples reject --bridge B --patient P SAMPLE --reason R --by NAME`.
struct HubSamplesReject: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reject",
        abstract: "Reject a bridge's quarantined reading; the bridge deletes it at its next sync.",
        discussion: """
            The reading is one its bridge sent in quarantine (`carebridge hub samples list`). The bridge deletes \
            it as `carebridge samples delete` does (a tombstone, with this reason and person in its review list), \
            once; if it was released or deleted on the bridge before the decision arrived, the bridge's decision \
            stands and the hub's is refused. A reading is decided once at the hub: a second decision, or one on \
            a reading the bridge has decided on, exits 64.

            Examples:
              carebridge hub samples reject --database postgres://hub@db/hub \\
                --bridge home-17 --patient ann --reason "a parcel on the scale" \\
                --by "Nurse Kim" 3f2a9c1e-0b7d-4c55-9a51-6f0e2d1c8b44
            """
    )

    @OptionGroup var decision: HubSampleDecisionOptions

    func run() async throws { try await decision.decide(.reject) }
}
