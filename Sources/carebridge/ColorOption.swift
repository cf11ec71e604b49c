import ArgumentParser
import Foundation

/// `--color auto|always|never`: severities and event states in colour on a terminal.
struct ColorOption: ParsableArguments {
    enum Choice: String, ExpressibleByArgument, CaseIterable {
        case auto, always, never
    }

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Colour severities and states: auto, always or never.",
            discussion: "auto: only when standard output is a terminal and NO_COLOR is not set.",
            valueName: "when"
        )
    )
    var color: Choice = .auto

    /// Whether to colour: `always`, `never`, or for `auto` a terminal on standard output, `NO_COLOR` unset or empty
    /// (no-color.org) and a terminal that is not `dumb`.
    func enabled(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        isTerminal: Bool = Output.isTerminal
    ) -> Bool {
        switch color {
        case .always: true
        case .never: false
        case .auto: isTerminal && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
        }
    }
}
