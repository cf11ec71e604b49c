import Foundation
import TestSupport
import Testing

/// Every command's `--help` ends its description with examples people can copy: an "Examples:" section whose
/// lines are whole commands (a long one continued with `\`), none wrapped mid-command at 80 columns.
@Suite struct HelpPagesCommandTests {
    /// Every command path (`[]` for `carebridge` itself, `["plan", "apply"]`, …) from the help dump.
    static func commands() async throws -> [[String]] {
        let dump = try await CarebridgeProcess.run(["--experimental-dump-help"])
        let root = try #require(
            try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any]
        )
        func walk(_ command: [String: Any], _ path: [String]) -> [[String]] {
            let children = (command["subcommands"] as? [[String: Any]]) ?? []
            return [path]
                + children.flatMap { child -> [[String]] in
                    guard let name = child["commandName"] as? String, name != "help" else { return [] }
                    return walk(child, path + [name])
                }
        }
        return walk(try #require(root["command"] as? [String: Any]), [])
    }

    /// What is wrong with the Examples section of `page` (the help of `carebridge PATH`), nil when nothing.
    static func problem(_ page: String, path: [String]) -> String? {
        let lines = page.components(separatedBy: "\n")
        guard let start = lines.firstIndex(of: "Examples:") else { return "no Examples: section" }
        let section = lines[(start + 1)...].prefix { !$0.isEmpty }
        guard !section.isEmpty else { return "an empty Examples: section" }
        let command = (["carebridge"] + path).joined(separator: " ")
        guard section.contains(where: { $0.hasPrefix("  \(command)") }) else { return "no example of `\(command)`" }
        var continued = false
        for line in section {
            let starts = line.hasPrefix("  carebridge ") || line == "  carebridge"
            guard starts || (continued && line.hasPrefix("    ")) else { return "wrapped or stray line: \(line)" }
            continued = line.hasSuffix(" \\")
        }
        return continued ? "the last example ends with a continuation" : nil
    }

    @Test func everyHelpPageHasExamplesThatAreNotWrappedMidCommand() async throws {
        let commands = try await Self.commands()
        #expect(commands.count > 40)
        var problems: [String] = []
        for path in commands {
            let help = try await CarebridgeProcess.run(path + ["--help"], environment: ["COLUMNS": "80"])
            if let problem = Self.problem(help.stdout, path: path) {
                problems.append("carebridge \(path.joined(separator: " ")): \(problem)")
            }
        }
        #expect(problems.isEmpty, "\(problems.count) page(s):\n\(problems.joined(separator: "\n"))")
    }

    @Test func aWrappedExampleIsFound() {
        let page = "Examples:\n  carebridge users add anna --sees\nanna --password-file pw.txt\n\nExit status: 0"
        #expect(Self.problem(page, path: ["users", "add"])?.hasPrefix("wrapped") == true)
        #expect(Self.problem("Examples:\n  carebridge x \\\n      --y\n", path: ["x"]) == nil)
    }
}
