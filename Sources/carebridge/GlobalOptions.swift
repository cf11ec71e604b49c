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
        try Self.resolvedTimeZone(option: timeZone)
    }

    /// The zone named by `option`, else `TZ`, else the system's (for a command whose own `--time-zone` means
    /// something else, as `users add`'s).
    static func resolvedTimeZone(option timeZone: String?) throws -> TimeZone {
        if let name = timeZone ?? ProcessInfo.processInfo.environment["TZ"].flatMap({ $0.isEmpty ? nil : $0 }) {
            let trimmed = name.hasPrefix(":") ? String(name.dropFirst()) : name
            guard let zone = TimeZone(identifier: trimmed) ?? Self.zone(file: trimmed) else {
                throw ValidationError("unknown time zone '\(name)': use an IANA name such as Europe/Berlin or UTC")
            }
            return zone
        }
        return TimeZone.current
    }

    /// A zone named by its file, as systemd and containers set it (`TZ=:/etc/localtime`,
    /// `TZ=/usr/share/zoneinfo/Europe/Berlin`): the IANA name from the path the file links to, or the system
    /// zone for /etc/localtime itself.
    static func zone(file path: String) -> TimeZone? {
        guard path.hasPrefix("/"), FileManager.default.fileExists(atPath: path) else { return nil }
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        if let range = resolved.range(of: "/zoneinfo/") {
            var name = String(resolved[range.upperBound...])
            for prefix in ["posix/", "right/"] where name.hasPrefix(prefix) { name.removeFirst(prefix.count) }
            if let zone = TimeZone(identifier: name) { return zone }
        }
        return resolved == "/etc/localtime" || path == "/etc/localtime" ? TimeZone.current : nil
    }
}
