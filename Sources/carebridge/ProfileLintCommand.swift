import ArgumentParser
import BridgeFoundation
import DeviceProfiles

struct ProfileLintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check device profiles for mistakes the loader alone does not catch.",
        discussion: """
            Errors: a profile that does not load (unknown keys, unknown decoder ids, unknown field names in \
            conditions and samples, each with its JSON path), a frame that can never be reached (an earlier frame \
            of the same entry selects every value it would), a fixture value for a characteristic or \
            advertisement entry the profile does not read, a fixture advertisement the profile does not claim or \
            that another loaded profile claims at the same or a higher priority. Warnings: a profile without \
            fixtures, a field beyond the shortest value the frame selects.

            PATH is a profile file or a directory of them; without one the built-in Devices/ profiles are linted. \
            Priorities are compared with the built-in, the user's and the given profiles. JSON (--json): \
            [{"file", "profile", "severity", "field", "message"}].

            Examples:
              carebridge profile lint Devices/weight-scale.json
              carebridge profile lint ~/my-profiles --json

            Exit status: 0 no errors (warnings allowed); 1 an error; 64 bad arguments.
            """
    )

    @Argument(help: ArgumentHelp("Profile files or directories (default: the built-in Devices/).", valueName: "path"))
    var paths: [String] = []

    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    func run() throws {
        let selection = try ProfileSelection.load(paths)
        var rows: [(file: String, profile: String?, finding: ProfileLint.Finding)] = []
        for problem in selection.problems {
            rows.append((problem.path, nil, ProfileLint.Finding(.error, "", problem.message)))
        }
        for (profile, file) in selection.selected {
            for finding in ProfileLint.check(profile, against: selection.all.catalog) {
                rows.append((file, profile.id, finding))
            }
        }
        let errors = rows.filter { $0.finding.severity == .error }.count
        if json {
            let values: [JSONValue] = rows.map { row in
                .object([
                    "file": .string(row.file), "profile": row.profile.map { .string($0) } ?? .null,
                    "severity": .string(row.finding.severity.rawValue), "field": .string(row.finding.field),
                    "message": .string(row.finding.message),
                ])
            }
            print(JSONValue.array(values).serialized())
        } else {
            for row in rows { print("\(row.finding.severity.rawValue) \(row.file): \(row.finding)") }
            print(
                "\(selection.selected.count + selection.problems.count) profile(s): \(errors) error(s), "
                    + "\(rows.count - errors) warning(s)"
            )
        }
        if errors > 0 { throw ExitCode(1) }
    }
}
