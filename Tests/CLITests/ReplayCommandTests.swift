import Foundation
import TestSupport
import Testing

/// `carebridge replay` and `carebridge recording redact`, run as a user would, on real store files.
@Suite struct ReplayCommandTests {
    static let root = PackageRoot.url

    static func recording(_ name: String) -> String { root.appendingPathComponent("Recordings/\(name)").path }
    static let plan = root.appendingPathComponent("Recordings/care-plan.json").path

    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("replay-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func theSummaryCountsTheStoredRecordsEachDeviceDownloaded() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("store.sqlite").path
        let files = [Self.recording("glucose-meter-download-twice.jsonl"), Self.recording("blood-pressure-kpa.jsonl")]
        let text = try await CarebridgeProcess.run(["replay", "--store", store, "--time-zone", "UTC"] + files)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(
            text.stdout.contains("02:00:00:00:00:27: downloaded 6 stored records from its memory"),
            "\(text.stdout)"
        )
        #expect(!text.stdout.contains("downloaded 0"), "a device without a download gets no line")

        let json = try await CarebridgeProcess.run(
            ["replay", "--store", store, "--time-zone", "UTC", "--json"] + files
        )
        #expect(json.status == 0, "\(json.stderr)")
        let devices = try #require(try self.json(json.stdout)["devices"] as? [[String: Any]])
        let byAddress = Dictionary(
            devices.map { ($0["address"] as? String ?? "", $0["downloadedRecords"] as? Int) },
            uniquingKeysWith: { first, _ in first }
        )
        #expect(byAddress["02:00:00:00:00:27"] == 6, "counted again on a replay that stores nothing new")
        #expect(byAddress.count == 2)
        #expect(byAddress.filter { $0.key != "02:00:00:00:00:27" }.values.allSatisfy { $0 == 0 })
    }

    @Test func weighInCompletesThePlanEventAndReplayingAgainAddsNothing() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("store.sqlite").path
        let arguments = [
            "replay", "--store", store, "--plan", Self.plan, "--time-zone", "Europe/Berlin", "--json",
            Self.recording("weight-scale-morning-weigh-in.jsonl"),
        ]
        let first = try await CarebridgeProcess.run(arguments)
        #expect(first.status == 0, "\(first.stderr)")
        let summary = try json(first.stdout)
        let samples = try #require(summary["samples"] as? [String: Any])
        #expect(samples["new"] as? Int == 3)
        #expect((samples["byType"] as? [String: Int])?["bodyMass"] == 1)
        let completed = try #require(summary["eventsCompleted"] as? [[String: Any]])
        #expect(completed.map { $0["task"] as? String } == ["weigh-in"])
        #expect(completed.first?["start"] as? String == "2026-11-20T00:00:00+01:00")
        let devices = try #require(summary["devices"] as? [[String: Any]])
        #expect(devices.first?["profile"] as? String == "weight-scale")
        #expect(devices.first?["model"] as? String == "WS-100")
        #expect(summary["unmatchedSamples"] as? Int == 2)
        #expect((summary["badLines"] as? [Any])?.isEmpty == true)

        let second = try await CarebridgeProcess.run(arguments)
        #expect(second.status == 0)
        let again = try json(second.stdout)
        #expect((again["samples"] as? [String: Any])?["new"] as? Int == 0)
        #expect((again["samples"] as? [String: Any])?["alreadyStored"] as? Int == 3)
        #expect((again["eventsCompleted"] as? [Any])?.isEmpty == true)

        let events = try await CarebridgeProcess.run([
            "events", "--store", store, "--time-zone", "Europe/Berlin", "--from", "2026-11-20", "--task", "weigh-in",
            "--json",
        ])
        #expect(events.status == 0, "\(events.stderr)")
        let list = try #require(JSONSerialization.jsonObject(with: Data(events.stdout.utf8)) as? [[String: Any]])
        #expect(list.first?["completed"] as? Bool == true)
        #expect((list.first?["values"] as? [[String: Any]])?.first?["value"] as? Double == 72.5)
    }

    @Test func storedBurstCompletesThePastDaysEvents() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try await CarebridgeProcess.run([
            "replay", "--store", dir.appendingPathComponent("s.sqlite").path, "--plan", Self.plan, "--json",
            "--time-zone", "Europe/Berlin", Self.recording("weight-scale-stored-burst.jsonl"),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let completed = try #require(try json(result.stdout)["eventsCompleted"] as? [[String: Any]])
        #expect(
            completed.compactMap { $0["start"] as? String }.sorted() == [
                "2026-11-16T00:00:00+01:00", "2026-11-17T00:00:00+01:00", "2026-11-18T00:00:00+01:00",
                "2026-11-19T00:00:00+01:00",
            ]
        )
    }

    static func brokenRecording(in dir: URL) throws -> String {
        let source = try String(contentsOfFile: recording("weight-scale-stored-burst.jsonl"), encoding: .utf8)
        var lines = source.split(separator: "\n").map(String.init)
        lines.insert("{\"t\": 1.15, \"kind\": \"read\", \"device\": ", at: 4)  // line 5: invalid JSON
        lines.insert(  // line 6: malformed payload (too short for its flags)
            "{\"t\": 1.9, \"kind\": \"indication\", \"device\": \"02:00:00:00:00:02\", \"characteristic\": \"2A9D\", \"value\": \"06a438\"}",
            at: 5
        )
        let path = dir.appendingPathComponent("broken.jsonl").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func badLinesAreReportedWithFileAndLineAndTheRestIsIngested() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let broken = try Self.brokenRecording(in: dir)
        let result = try await CarebridgeProcess.run([
            "replay", "--store", dir.appendingPathComponent("s.sqlite").path, "--json", broken,
        ])
        #expect(result.status == 0)
        #expect(result.stderr.contains("\(broken):5:"))
        #expect(result.stderr.contains("\(broken):6:"))
        #expect(result.stderr.contains("malformed payload"))
        let summary = try json(result.stdout)
        #expect((summary["samples"] as? [String: Any])?["new"] as? Int == 4)
        let bad = try #require(summary["badLines"] as? [[String: Any]])
        #expect(bad.compactMap { $0["line"] as? Int } == [5, 6])
    }

    @Test func strictRefusesEverythingWhenALineIsBad() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let broken = try Self.brokenRecording(in: dir)
        let store = dir.appendingPathComponent("s.sqlite").path
        let result = try await CarebridgeProcess.run([
            "replay", "--store", store, "--plan", Self.plan, "--strict",
            Self.recording("weight-scale-morning-weigh-in.jsonl"), broken,
        ])
        #expect(result.status == 65)
        #expect(result.stderr.contains("\(broken):5:"))
        #expect(result.stderr.contains("nothing written"))
        #expect(!FileManager.default.fileExists(atPath: store), "the store must not even be created")

        let clean = try await CarebridgeProcess.run([
            "replay", "--store", store, "--strict", "--json", Self.recording("weight-scale-morning-weigh-in.jsonl"),
        ])
        #expect(clean.status == 0)
        #expect((try json(clean.stdout)["samples"] as? [String: Any])?["new"] as? Int == 3)
    }

    @Test func humanSummaryListsDevicesSamplesAndEventsWithoutAProgressBarInAPipe() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try await CarebridgeProcess.run([
            "replay", "--store", dir.appendingPathComponent("s.sqlite").path, "--plan", Self.plan, "--time-zone",
            "Europe/Berlin",
            Self.recording("heart-rate-strap-20-minutes.jsonl"), Self.recording("blood-pressure-kpa.jsonl"),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Replayed 2 recordings"))
        #expect(result.stdout.contains("heart-rate"))
        #expect(result.stdout.contains("rrInterval"))
        #expect(result.stdout.contains("Events completed: 1"))
        #expect(result.stdout.contains("blood-pressure"))
        #expect(!result.stderr.contains("\r"))
        #expect(!result.stderr.contains("%"))
    }

    @Test func unreadableRecordingExits66AndBadSpeedExits64() async throws {
        let missing = try await CarebridgeProcess.run([
            "replay", "--store", "/tmp/never-\(UUID()).sqlite", "/nonexistent.jsonl",
        ])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("/nonexistent.jsonl"))
        let speed = try await CarebridgeProcess.run([
            "replay", "--speed", "fast", Self.recording("blood-pressure-kpa.jsonl"),
        ])
        #expect(speed.status == 64)
        #expect(speed.stderr.contains("--speed"))
    }

    @Test func brokenUserProfileIsReportedAndTheOthersStillWork() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let devices = dir.appendingPathComponent("devices")
        try FileManager.default.createDirectory(at: devices, withIntermediateDirectories: true)
        try "{\"id\": \"x\"}".write(
            to: devices.appendingPathComponent("broken.json"),
            atomically: true,
            encoding: .utf8
        )
        let result = try await CarebridgeProcess.run([
            "replay", "--store", dir.appendingPathComponent("s.sqlite").path, "--devices", devices.path, "--json",
            Self.recording("thermometer-fahrenheit.jsonl"),
        ])
        #expect(result.status == 0)
        #expect(result.stderr.contains(devices.appendingPathComponent("broken.json").path))
        #expect((try json(result.stdout)["samples"] as? [String: Any])?["new"] as? Int == 1)
    }

    @Test func redactReplacesAddressesAndNamesAndStillReplays() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = dir.appendingPathComponent("mine.jsonl")
        let text = try String(contentsOfFile: Self.recording("weight-scale-morning-weigh-in.jsonl"), encoding: .utf8)
            .replacingOccurrences(of: "02:00:00:00:00:01", with: "C4:7C:8D:6A:3E:10")
            .replacingOccurrences(of: "Device 1", with: "Anna's Scale")
        try text.write(to: original, atomically: true, encoding: .utf8)

        let stdout = try await CarebridgeProcess.run(["recording", "redact", original.path])
        #expect(stdout.status == 0)
        #expect(!stdout.stdout.contains("C4:7C:8D:6A:3E:10"))
        #expect(!stdout.stdout.contains("Anna"))
        #expect(stdout.stdout.contains("02:00:00:00:00:01"))

        let out = dir.appendingPathComponent("shared.jsonl").path
        let file = try await CarebridgeProcess.run(["recording", "redact", original.path, "--out", out])
        #expect(file.status == 0)
        #expect(try String(contentsOfFile: out, encoding: .utf8) == stdout.stdout)
        let replay = try await CarebridgeProcess.run([
            "replay", "--store", dir.appendingPathComponent("s.sqlite").path, "--json", out,
        ])
        #expect((try json(replay.stdout)["samples"] as? [String: Any])?["new"] as? Int == 3)
    }
}
