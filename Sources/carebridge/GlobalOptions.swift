import ArgumentParser
import Foundation

/// Options every subcommand understands.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Time zone for device clocks and output (IANA name, e.g. Europe/Berlin).",
            discussion: "Defaults to the TZ environment variable, then the system zone."
        )
    )
    var timeZone: String?

    /// The zone named by `--time-zone`, else `TZ`, else the system's.
    func resolvedTimeZone() throws -> TimeZone {
        if let name = timeZone ?? ProcessInfo.processInfo.environment["TZ"].flatMap({ $0.isEmpty ? nil : $0 }) {
            let trimmed = name.hasPrefix(":") ? String(name.dropFirst()) : name
            guard let zone = TimeZone(identifier: trimmed) else {
                throw ValidationError("unknown time zone '\(name)': use an IANA name such as Europe/Berlin or UTC")
            }
            return zone
        }
        return TimeZone.current
    }
}
