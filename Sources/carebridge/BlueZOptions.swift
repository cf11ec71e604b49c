import ArgumentParser
import BlueZTransport
import DeviceProfiles
import Foundation

/// Options of the commands that talk to bluetoothd (`scan`, `run`, `record`).
struct BlueZOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Bluetooth adapter to use, e.g. hci1.",
            discussion: "Default: the first powered adapter, else the first one (see `carebridge adapters`).",
            valueName: "hciN"
        )
    )
    var adapter: String?

    @Option(name: .long, help: ArgumentHelp("Another directory of device profiles (repeatable).", valueName: "dir"))
    var devices: [String] = []

    func validate() throws {
        if let adapter, adapter.isEmpty || adapter.contains("/") {
            throw ValidationError("--adapter takes an adapter name such as hci0, not '\(adapter)'")
        }
    }

    func configuration() -> BlueZConfiguration {
        var configuration = BlueZConfiguration()
        configuration.adapter = adapter
        return configuration
    }

    func catalog() -> DeviceCatalog {
        let loaded = DeviceProfileLoader.loadDefault(required: devices.map { URL(fileURLWithPath: $0) })
        for problem in loaded.problems { Output.error("warning: device profile \(problem)") }
        return loaded.catalog
    }
}

/// Exit statuses of the BlueZ commands (README "Errors").
enum BlueZExit {
    static let help = """
        Exit status: 0 done (also after SIGINT/SIGTERM); 64 bad arguments; 69 no system bus, bluetoothd not \
        running, or no adapter; 74 the store cannot be opened or written; 75 the scanner stayed wedged or the \
        bus dropped (a service manager should restart us); 78 the adapter is blocked by rfkill or cannot be \
        powered on; 130/143 a second SIGINT/SIGTERM ended a graceful stop that hung.
        """

    /// Prints a transport error with its advice and returns its exit code.
    static func fail(_ error: TransportError) -> ExitCode {
        Output.error(error.description)
        return ExitCode(error.exitCode)
    }
}
