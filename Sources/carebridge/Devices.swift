import ArgumentParser

struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "What the bridge keeps per device between sessions (download cursors, consent codes).",
        subcommands: [DevicesList.self, DevicesConsent.self, DevicesAssign.self]
    )
}
