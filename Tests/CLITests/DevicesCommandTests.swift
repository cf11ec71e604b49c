import Foundation
import TestSupport
import Testing

/// `devices consent` and `devices list` on a real store file; `replay` keeps its session variables to itself.
@Suite struct DevicesCommandTests {
    /// This test's directory, removed when the test ends.
    let scratch: ScratchDirectory
    var directory: URL { scratch.url }
    let storePath: String

    init() throws {
        scratch = try ScratchDirectory("carebridge-cli-")
        storePath = scratch.url.appendingPathComponent("store.sqlite").path
    }

    func run(_ arguments: [String]) async throws -> CarebridgeProcess.Result {
        try await CarebridgeProcess.run(arguments + ["--store", storePath], environment: ["TZ": "Europe/Berlin"])
    }

    @Test func consentIsStoredListedWithoutTheCodeAndForgotten() async throws {
        let stored = try await run([
            "devices", "consent", "c4:7c:8d:6a:3e:10", "--consent-code", "1234", "--user-index", "2",
        ])
        #expect(stored.status == 0, "\(stored.stderr)")
        #expect(
            stored.stdout.contains("C4:7C:8D:6A:3E:10 (uds-body-composition-scale): consent code stored for slot 2")
        )
        let listed = try await run(["devices", "list"])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("uds-body-composition-scale"))
        #expect(listed.stdout.contains("consentCode") && listed.stdout.contains("set"))
        #expect(!listed.stdout.contains("1234"), "the consent code is never printed")
        let json = try await run(["devices", "list", "--json"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(rows.contains { $0["name"] as? String == "userIndex" && $0["value"] as? String == "2" })
        let forgotten = try await run(["devices", "consent", "C4:7C:8D:6A:3E:10", "--forget"])
        #expect(forgotten.status == 0)
        #expect(try await run(["devices", "list"]).stdout.contains("no device keeps session variables yet"))
    }

    @Test(
        "bad consent arguments are refused",
        arguments: [
            ["devices", "consent", "not-an-address", "--consent-code", "1"],
            ["devices", "consent", "C4:7C:8D:6A:3E:10"],
            ["devices", "consent", "C4:7C:8D:6A:3E:10", "--consent-code", "10000"],
            ["devices", "consent", "C4:7C:8D:6A:3E:10", "--consent-code", "1", "--user-index", "255"],
            ["devices", "consent", "C4:7C:8D:6A:3E:10", "--forget", "--consent-code", "1"],
        ]
    )
    func badArguments(arguments: [String]) async throws {
        let result = try await run(arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: storePath), "nothing is created for a refused command")
    }

    @Test func replayAnswersTheGlucoseSessionAndLeavesTheStoreCursorAlone() async throws {
        let recording = ReplayCommandTests.recording("glucose-meter-download-twice.jsonl")
        let first = try await run(["replay", recording])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("Bad lines: 0"))
        #expect(try await run(["replay", "--strict", recording]).status == 0, "a second replay answers the same")
        #expect(try await run(["devices", "list"]).stdout.contains("no device keeps session variables yet"))
    }
}
