import ArgumentParser

struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "What the bridge keeps per device between sessions (download cursors, consent codes).",
        discussion: """
            Examples:
              carebridge devices list
              carebridge devices list --json
            """,
        subcommands: [DevicesList.self, DevicesConsent.self, DevicesAssign.self]
    )
}
