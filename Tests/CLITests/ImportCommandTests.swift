import Foundation
import TestSupport
import Testing

/// `carebridge import btsnoop`, run as a user would: a capture becomes a recording, and the recording replays
/// into a real store like a live session.
@Suite struct ImportCommandTests {
    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("import-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func aSnoopLogOfAWeighInReplaysIntoTheStoreAsTheWeighIn() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let capture = dir.appendingPathComponent("btsnoop_hci.log")
        try Data(BTSnoopWeighInCapture(format: .h4).bytes).write(to: capture)
        let recording = dir.appendingPathComponent("scale.jsonl").path
        let imported = try await CarebridgeProcess.run([
            "import", "btsnoop", capture.path, "--out", recording, "--time-zone", "Europe/Berlin", "--json",
        ])
        #expect(imported.status == 0, "\(imported.stderr)")
        let summary = try json(imported.stdout)
        #expect(summary["datalink"] as? Int == 1002)
        #expect(summary["indications"] as? Int == 1)
        #expect(summary["reads"] as? Int == 1)
        #expect(summary["connections"] as? Int == 1)
        let attributes = try FileManager.default.attributesOfItem(atPath: recording)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let lines = try String(contentsOfFile: recording, encoding: .utf8).split(separator: "\n").map {
            try json(String($0))
        }
        #expect(lines.first?["timeZone"] as? String == "Europe/Berlin")
        #expect(
            lines.contains {
                $0["kind"] as? String == "indication" && $0["value"] as? String == "0ea438ea070b14073a0201ed00d606"
            }
        )

        let store = dir.appendingPathComponent("store.sqlite").path
        let replay = try await CarebridgeProcess.run(["replay", "--store", store, "--json", recording])
        #expect(replay.status == 0, "\(replay.stderr)")
        let replayed = try json(replay.stdout)
        let samples = try #require(replayed["samples"] as? [String: Any])
        #expect(samples["new"] as? Int == 3)  // bodyMass, bodyMassIndex, height
        let listed = try await CarebridgeProcess.run(["samples", "--store", store, "--type", "bodyMass", "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("72.5"), "\(listed.stdout)")
        #expect(listed.stdout.contains("2026-11-20T07:58:02"), "\(listed.stdout)")
    }

    @Test func aFileThatIsNotACaptureIsRefusedWithExit65() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("session.jsonl")
        try Data("{\"format\": \"carebridge-recording\"}\n".utf8).write(to: file)
        let result = try await CarebridgeProcess.run([
            "import", "btsnoop", file.path, "--out", dir.appendingPathComponent("x.jsonl").path,
        ])
        #expect(result.status == 65)
        #expect(result.stderr.contains("not a btsnoop capture"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("x.jsonl").path))
    }

    @Test func aMissingCaptureIsExit66AndJSONWithoutOutIsAUsageError() async throws {
        let missing = try await CarebridgeProcess.run(["import", "btsnoop", "/nonexistent/btsnoop_hci.log"])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("/nonexistent/btsnoop_hci.log: no such file"), "\(missing.stderr)")
        let usage = try await CarebridgeProcess.run(["import", "btsnoop", "x.log", "--json"])
        #expect(usage.status == 64)
        #expect(usage.stderr.contains("--json needs --out"), "\(usage.stderr)")
        let handle = try await CarebridgeProcess.run(["import", "btsnoop", "x.log", "--handle", "18=heart"])
        #expect(handle.status == 64)
        #expect(handle.stderr.contains("--handle 0x0012=2A9D"), "\(handle.stderr)")
    }

    @Test func withoutOutTheRecordingGoesToStandardOutputAndTheSummaryToStandardError() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let capture = dir.appendingPathComponent("btmon.btsnoop")
        try Data(BTSnoopWeighInCapture(format: .monitor(controller: 0), discovery: false).bytes).write(to: capture)
        let result = try await CarebridgeProcess.run(["import", "btsnoop", capture.path, "--handle", "0x0012=2A9D"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try result.stdout.split(separator: "\n").map { try json(String($0)) }
        #expect(lines.first?["format"] as? String == "carebridge-recording")
        #expect(lines.contains { $0["characteristic"] as? String == "2A9D" }, "\(result.stdout)")
        #expect(result.stderr.contains("imported"), "\(result.stderr)")
        #expect(result.stderr.contains("0x0022"), "\(result.stderr)")  // the unmapped read is named
        #expect(result.stderr.contains("no time zone"), "\(result.stderr)")
    }

    @Test func namedHandlesLetAProfileClaimACaptureWithoutAdvertisingOrDiscovery() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let capture = dir.appendingPathComponent("bonded.btsnoop")
        let bytes = BTSnoopWeighInCapture(format: .h4, discovery: false, advertising: false).bytes
        try Data(bytes).write(to: capture)
        let store = dir.appendingPathComponent("store.sqlite").path

        // Nothing names the device's service: the replay decodes nothing and says so in its exit status.
        let bare = dir.appendingPathComponent("bare.jsonl").path
        let plain = try await CarebridgeProcess.run(["import", "btsnoop", capture.path, "--out", bare])
        #expect(plain.status == 0, "\(plain.stderr)")
        let unclaimed = try await CarebridgeProcess.run(["replay", "--store", store, bare])
        #expect(unclaimed.status == 65, "\(unclaimed.stdout)\n\(unclaimed.stderr)")
        #expect(unclaimed.stderr.contains("no device profile claimed"), "\(unclaimed.stderr)")
        #expect(unclaimed.stderr.contains("--handle"), "\(unclaimed.stderr)")

        // The handle named: the recording's services line carries the Weight Scale, the profile claims it.
        let named = dir.appendingPathComponent("named.jsonl").path
        let imported = try await CarebridgeProcess.run([
            "import", "btsnoop", capture.path, "--handle", "0x0012=2A9D", "--out", named,
        ])
        #expect(imported.status == 0, "\(imported.stderr)")
        let lines = try String(contentsOfFile: named, encoding: .utf8).split(separator: "\n").map {
            try json(String($0))
        }
        let services = try #require(lines.first { $0["kind"] as? String == "services" }?["services"] as? [String: Any])
        #expect((services["181D"] as? [String]) == ["2A9D"], "\(services)")
        let replay = try await CarebridgeProcess.run(["replay", "--store", store, "--json", named])
        #expect(replay.status == 0, "\(replay.stderr)")
        let samples = try #require(try json(replay.stdout)["samples"] as? [String: Any])
        #expect(samples["new"] as? Int == 3)  // bodyMass, bodyMassIndex, height
    }

    @Test func aHandleWhoseServiceIsNotKnownIsNamedInAWarning() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let capture = dir.appendingPathComponent("meter.btsnoop")
        try Data(BTSnoopWeighInCapture(format: .h4, discovery: false).bytes).write(to: capture)
        let out = dir.appendingPathComponent("x.jsonl").path
        let racp = try await CarebridgeProcess.run([
            "import", "btsnoop", capture.path, "--handle", "0x0012=2A9D", "--handle", "0x0030=2A52", "--out", out,
        ])
        #expect(racp.status == 0, "\(racp.stderr)")
        #expect(racp.stderr.contains("--handle 0x0030=2A52: its service is not known"), "\(racp.stderr)")
        let given = try await CarebridgeProcess.run([
            "import", "btsnoop", capture.path, "--handle", "0x0012=2A9D", "--handle", "0x0030=1808/2A52", "--out", out,
        ])
        #expect(given.status == 0, "\(given.stderr)")
        #expect(!given.stderr.contains("its service is not known"), "\(given.stderr)")
        let bad = try await CarebridgeProcess.run(["import", "btsnoop", capture.path, "--handle", "0x0030=zz/2A52"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("HANDLE=SERVICE/UUID"), "\(bad.stderr)")
    }
}
