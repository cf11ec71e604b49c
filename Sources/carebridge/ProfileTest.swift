import ArgumentParser
import BridgeCore
import BridgeFoundation
import DeviceProfiles
import Foundation
import GATTDecoding
import SampleIngest

struct ProfileTest: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run the fixtures of device profiles through the ingest pipeline.",
        discussion: """
            Each fixture of a profile (its "fixtures": hex values with the samples they must give) becomes a \
            synthetic recording that is replayed through the same pipeline `carebridge replay` uses; the stored \
            samples are compared with the fixture's "expect" in order (value rounded to the decimals the expected \
            value is written with, the unit, LO/HI comparator, user slot, device time). A failing fixture also \
            shows what the frames made of each value (the frame that selected it, final or intermediate, its \
            fields). A fixture's \
            "advertisement" must be claimed by its own profile among all loaded profiles, without a priority tie.

            PATH is a profile file or a directory of them; without one the built-in Devices/ profiles are tested. \
            Claims are checked against the built-in, the user's ($XDG_CONFIG_HOME/carebridge/devices) and the \
            given profiles. JSON (--json): {"results": [{"profile", "file", "fixture", "passed", "differences", \
            "issues", "trace", "samples"}], "problems": [...], "withoutFixtures": [...]}.

            Examples:
              carebridge profile test
              carebridge profile test Devices/weight-scale.json
              carebridge profile test ~/my-profiles --json

            Exit status: 0 every fixture passed; 1 a fixture failed or a profile could not be read; 64 bad \
            arguments.
            """
    )

    @Argument(help: ArgumentHelp("Profile files or directories (default: the built-in Devices/).", valueName: "path"))
    var paths: [String] = []

    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    func run() async throws {
        let selection = try ProfileSelection.load(paths)
        var results: [(file: String, result: ProfileFixtureRunner.Result)] = []
        for (profile, file) in selection.selected {
            for fixture in profile.fixtures {
                let result = try await ProfileFixtureRunner.run(fixture, of: profile, catalog: selection.all.catalog)
                results.append((file, result))
            }
        }
        let withoutFixtures = selection.selected.filter { $0.profile.fixtures.isEmpty }.map(\.profile.id)
        let failed = results.filter { !$0.result.passed }.count
        if json {
            let rows: [JSONValue] = results.map { file, result in
                .object([
                    "profile": .string(result.profile), "file": .string(file), "fixture": .string(result.fixture),
                    "passed": .bool(result.passed), "differences": .array(result.differences.map { .string($0) }),
                    "issues": .array(result.issues.map { .string($0) }),
                    "trace": .array(result.trace.map { .string($0) }),
                    "samples": .array(result.samples.map { .object($0.fixtureJSON) }),
                ])
            }
            let object: JSONObject = [
                "results": .array(rows),
                "problems": .array(selection.problems.map { .string($0.description) }),
                "withoutFixtures": .array(withoutFixtures.map { .string($0) }),
            ]
            print(JSONValue.object(object).serialized())
        } else {
            for problem in selection.problems { print("ERROR \(problem)") }
            for (_, result) in results {
                print("\(result.passed ? "PASS" : "FAIL") \(result.profile): \(result.fixture)")
                guard !result.passed else { continue }
                for difference in result.differences { print("     \(difference)") }
                for issue in result.issues { print("     pipeline: \(issue)") }
                for line in result.trace { print("     \(line)") }
            }
            var summary =
                "\(results.count) fixture(s) of \(selection.selected.count) profile(s): "
                + "\(results.count - failed) passed, \(failed) failed"
            if !selection.problems.isEmpty { summary += ", \(selection.problems.count) profile(s) unreadable" }
            print(summary)
            if !withoutFixtures.isEmpty { print("without fixtures: \(withoutFixtures.joined(separator: ", "))") }
        }
        if failed > 0 || !selection.problems.isEmpty { throw ExitCode(1) }
    }
}

extension QuantitySample {
    /// The fields a fixture expects, for `profile test --json`.
    var fixtureJSON: JSONObject {
        var object: JSONObject = [
            "type": .string(type.rawValue),
            "value": value.isFinite ? .double(value) : .string(value > 0 ? "+inf" : "-inf"),
            "unit": .string(unit.description),
        ]
        if let comparator { object["comparator"] = .string(comparator.rawValue) }
        if let user = metadata["userID"] { object["userIndex"] = .string(user) }
        if let deviceTime { object["time"] = .string(deviceTime.description) }
        return object
    }
}
