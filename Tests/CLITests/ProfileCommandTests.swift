import Foundation
import TestSupport
import Testing

/// `carebridge profile test | lint | scaffold` as a user runs them.
@Suite struct ProfileCommandTests {
    /// This test's directory, removed when the test ends.
    let scratch: ScratchDirectory
    var directory: URL { scratch.url }

    init() throws {
        scratch = try ScratchDirectory("carebridge-profile-")
    }

    func write(_ name: String, _ text: String) throws -> String {
        let url = directory.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    static func scale(expect: String, frames: String? = nil) -> String {
        """
        {"id": "cli-frame-scale", "name": "CLI frame scale", "link": "gatt", "match": {"name": "CLISCALE*", "priority": 40},
         "characteristics": [{"uuid": "FFE1", "use": "notify", "frames": \(frames ?? """
            [{"name": "weight", "select": {"prefix": "10"},
              "fields": [{"name": "stable", "at": 1, "type": "u8"}, {"name": "w", "at": 2, "type": "u16le", "scale": 0.01}],
              "final": ["stable"], "samples": [{"type": "bodyMass", "field": "w", "unit": "kg"}]}]
            """)}],
         "fixtures": [{"name": "72.35 kg", "advertisement": {"name": "CLISCALE-1"},
                       "values": [{"characteristic": "FFE1", "hex": "10 01 43 1C"}], "expect": \(expect)}]}
        """
    }

    @Test func aCopiedBinaryCarriesTheBuiltInProfilesAndAnEmptyDirectoryIsRefused() async throws {
        // A binary copied away from the checkout (no Devices/ beside or above it) still has every shipped profile.
        let copy = directory.appendingPathComponent("bin/carebridge")
        try FileManager.default.createDirectory(
            at: copy.deletingLastPathComponent(),
            withIntermediateDirectories: true
        )
        try FileManager.default.copyItem(at: CarebridgeProcess.executable, to: copy)
        let shipped = try FileManager.default.contentsOfDirectory(
            atPath: PackageRoot.url.appendingPathComponent("Devices").path
        )
        .filter { $0.hasSuffix(".json") }.count
        let lint = try await CarebridgeProcess.run(["profile", "lint"], executable: copy)
        #expect(lint.status == 0, "\(lint.stderr)")
        #expect(lint.stdout.contains("\(shipped) profile(s): 0 error(s)"), "\(lint.stdout)")
        let store = directory.appendingPathComponent("store.sqlite").path
        let replay = try await CarebridgeProcess.run(
            [
                "replay", "--store", store,
                PackageRoot.url.appendingPathComponent("Recordings/weight-scale-morning-weigh-in.jsonl").path,
            ],
            executable: copy
        )
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stdout.contains("weight-scale"), "\(replay.stdout)")

        let empty = directory.appendingPathComponent("no-profiles")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        for command in ["lint", "test"] {
            let refused = try await CarebridgeProcess.run(["profile", command, empty.path], executable: copy)
            #expect(refused.status == 64, "\(command): \(refused.stdout)")
            #expect(refused.stderr.contains("no device profile (*.json) in \(empty.path)"), "\(refused.stderr)")
        }
    }

    @Test func shippedProfilesPassTheirFixtures() async throws {
        let result = try await CarebridgeProcess.run(["profile", "test"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("PASS weight-scale: SI weigh-in with time stamp, 72.5 kg"))
        #expect(result.stdout.contains("0 failed"))
    }

    @Test func aPassingAndAFailingFixtureGiveExitStatusAndDiff() async throws {
        let good = try write("good.json", Self.scale(expect: #"[{"type": "bodyMass", "value": 72.35, "unit": "kg"}]"#))
        let passed = try await CarebridgeProcess.run(["profile", "test", good])
        #expect(passed.status == 0, "\(passed.stdout)")
        #expect(passed.stdout.contains("PASS cli-frame-scale: 72.35 kg"))
        let bad = try write("bad.json", Self.scale(expect: #"[{"type": "bodyMass", "value": 72.3, "unit": "kg"}]"#))
        let failed = try await CarebridgeProcess.run(["profile", "test", bad])
        #expect(failed.status == 1)
        #expect(failed.stdout.contains("FAIL cli-frame-scale: 72.35 kg"))
        #expect(failed.stdout.contains("sample 1: value differ: expected bodyMass 72.3 kg, got bodyMass 72.35 kg"))
        #expect(failed.stdout.contains(#"value 1 (characteristic FFE1): frame weight {"stable": 1, "w": 72.35}"#))
        let json = try await CarebridgeProcess.run(["profile", "test", bad, "--json"])
        #expect(json.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let results = try #require(object["results"] as? [[String: Any]])
        #expect(results.count == 1)
        #expect(results.first?["passed"] as? Bool == false)
        #expect((results.first?["differences"] as? [String])?.first?.hasPrefix("sample 1: value differ") == true)
    }

    @Test func anUnreadableProfileFailsTestAndLintWithItsPath() async throws {
        let broken = try write("broken.json", Self.scale(expect: "[]").replacingOccurrences(of: "u16le", with: "u16xx"))
        let tested = try await CarebridgeProcess.run(["profile", "test", broken])
        #expect(tested.status == 1)
        #expect(tested.stdout.contains("characteristics[0].frames[0].fields[1].type: 'u16xx' is not a field type"))
        let linted = try await CarebridgeProcess.run(["profile", "lint", broken])
        #expect(linted.status == 1)
        #expect(linted.stdout.contains("error \(broken): characteristics[0].frames[0].fields[1].type"))
    }

    @Test func lintReportsAnUnreachableFrameAsAnError() async throws {
        let frames = #"[{"name": "all", "fields": []}, {"name": "weight", "select": {"prefix": "10"}, "fields": []}]"#
        let path = try write("unreachable.json", Self.scale(expect: "[]", frames: frames))
        let linted = try await CarebridgeProcess.run(["profile", "lint", path, "--json"])
        #expect(linted.status == 1)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(linted.stdout.utf8)) as? [[String: Any]])
        #expect(rows.contains { ($0["message"] as? String)?.contains("frame weight is unreachable") == true })
        #expect(try await CarebridgeProcess.run(["profile", "lint"]).status == 0, "shipped profiles lint clean")
    }

    @Test func scaffoldDraftsALoadableProfileFromARecording() async throws {
        let out = directory.appendingPathComponent("drafted.json").path
        let recording = PackageRoot.recording("mi-body-composition-scale-2-broadcast.jsonl")
        let result = try await CarebridgeProcess.run(["profile", "scaffold", recording, "--out", out])
        #expect(result.status == 0, "\(result.stderr)")
        let text = try String(contentsOfFile: out, encoding: .utf8)
        // It holds the recorded payloads: readable by its owner only, unless --mode says otherwise.
        let mode = try FileManager.default.attributesOfItem(atPath: out)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(text.contains(#""link": "broadcast""#))
        #expect(text.contains(#""uuid": "181B""#))
        #expect(text.contains(#""prefix": "02""#))
        let tested = try await CarebridgeProcess.run(["profile", "test", out])
        #expect(tested.status == 0, "frame stubs store nothing, so empty expects hold: \(tested.stdout)")
        #expect(tested.stdout.contains("7 fixture(s) of 1 profile(s): 7 passed"))
    }

    @Test func scaffoldWorksOnABTSnoopImport() async throws {
        let capture = directory.appendingPathComponent("weigh-in.log")
        try Data(BTSnoopWeighInCapture(format: .h4).bytes).write(to: capture)
        let recording = directory.appendingPathComponent("weigh-in.jsonl").path
        let imported = try await CarebridgeProcess.run(["import", "btsnoop", capture.path, "--out", recording])
        #expect(imported.status == 0, "\(imported.stderr)")
        let result = try await CarebridgeProcess.run(["profile", "scaffold", recording])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let match = try #require(object["match"] as? [String: Any])
        #expect(match["name"] as? String == "WS-100*")
        #expect(match["serviceUUIDs"] as? [String] == ["181D"])
        #expect((match["manufacturerData"] as? [[String: Any]])?.first?["company"] as? String == "020E")
        let characteristics = try #require(object["characteristics"] as? [[String: Any]])
        #expect(
            characteristics.contains {
                $0["uuid"] as? String == "2A9D" && $0["decoder"] as? String == "weight-measurement"
            }
        )
        let fixtures = try #require(object["fixtures"] as? [[String: Any]])
        #expect(fixtures.count == 1)
        // The standard measurement decodes: profile test shows the stored sample for the user to put in expect.
        let drafted = try write("drafted.json", result.stdout)
        let tested = try await CarebridgeProcess.run(["profile", "test", drafted])
        #expect(tested.status == 1)
        #expect(tested.stdout.contains("sample 1: unexpected bodyMass 72.5 kg"))
    }

    @Test func scaffoldRefusesAnEmptyRecording() async throws {
        let empty = try write(
            "empty.jsonl",
            #"{"format": "carebridge-recording", "version": 1, "recordedAt": "2026-11-20T07:58:00+01:00"}"# + "\n"
        )
        let result = try await CarebridgeProcess.run(["profile", "scaffold", empty])
        #expect(result.status == 65)
        #expect(result.stderr.contains("no events to draft a profile from"))
    }
}
