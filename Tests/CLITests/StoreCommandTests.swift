import Foundation
import TestSupport
import Testing

/// End-to-end tests of the store commands on real store files.
@Suite struct StoreCommandTests {
    /// This test's directory, removed when the test ends.
    let scratch: ScratchDirectory
    var directory: URL { scratch.url }
    let storePath: String

    init() throws {
        scratch = try ScratchDirectory("carebridge-cli-")
        storePath = scratch.url.appendingPathComponent("data/store.sqlite").path
    }

    static let plan = """
        {"tasks": [
          {"id": "weigh-in", "title": "Weigh yourself", "kind": "assessment",
           "schedule": {"timeZone": "Europe/Berlin",
                        "elements": [{"start": "2026-11-01T00:00:00", "interval": {"days": 1}, "duration": "allDay"}]},
           "linkage": {"type": "bodyMass", "unit": "kg", "aggregation": "first"}},
          {"id": "heart-rate", "title": "Heart rate", "kind": "assessment",
           "schedule": {"timeZone": "Europe/Berlin",
                        "elements": [{"start": "2026-11-01T00:00:00", "interval": {"days": 1}, "duration": "allDay"}]},
           "linkage": {"type": "heartRate", "unit": "bpm", "aggregation": "each"}},
          {"id": "medication", "title": "Take medication", "kind": "intervention",
           "schedule": {"timeZone": "Europe/Berlin",
                        "elements": [{"start": "2026-11-01T08:00:00", "interval": {"days": 1}, "duration": 3600}]}}
        ]}
        """

    func write(_ text: String, to name: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func run(_ arguments: [String]) async throws -> CarebridgeProcess.Result {
        try await CarebridgeProcess.run(arguments + ["--store", storePath], environment: ["TZ": "Europe/Berlin"])
    }

    func json(_ arguments: [String]) async throws -> Any {
        let result = try await run(arguments + ["--json"])
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    @Test func applyIngestAndListEventsAsJSON() async throws {
        let plan = try write(Self.plan, to: "plan.json")
        #expect(try await run(["plan", "apply", plan]).status == 0)
        let ingest = try await run(["ingest", "bodyMass", "160", "lb", "--at", "2026-11-10T07:30", "--force"])
        #expect(ingest.status == 0, "\(ingest.stderr)")
        #expect(try await run(["complete", "medication", "--at", "2026-11-10T08:15"]).status == 0)
        let events = try #require(
            try await json(["events", "--from", "2026-11-10", "--to", "2026-11-10"]) as? [[String: Any]]
        )
        #expect(events.map { $0["task"] as? String } == ["heart-rate", "weigh-in", "medication"])
        let weighIn = try #require(events.first { $0["task"] as? String == "weigh-in" })
        #expect(weighIn["occurrence"] as? Int == 9)
        #expect(weighIn["start"] as? String == "2026-11-10T00:00:00+01:00")
        #expect(weighIn["end"] as? String == "2026-11-10T23:59:59+01:00")
        #expect(weighIn["completed"] as? Bool == true)
        let value = try #require((weighIn["values"] as? [[String: Any]])?.first)
        #expect(abs((value["value"] as? Double ?? 0) - 160 * 0.45359237) < 1e-9)
        #expect(value["unit"] as? String == "kg")
        #expect(value["at"] as? String == "2026-11-10T07:30:00+01:00")
        let samples = try #require(try await json(["samples"]) as? [[String: Any]])
        #expect(samples.count == 1 && value["sample"] as? String == samples[0]["id"] as? String)
        let medication = try #require(events.last)
        #expect(medication["completed"] as? Bool == true)
        #expect((medication["values"] as? [[String: Any]])?.first?["sample"] is NSNull)
        // Human output is an aligned table with the zone's local times.
        let table = try await run(["events", "--from", "2026-11-10", "--to", "2026-11-10"])
        let lines = table.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("START") == true && lines.count == 4)
        #expect(table.stdout.contains("2026-11-10 08:00"))
    }

    @Test func malformedPlanNamesPathAndLocationAndAppliesNothing() async throws {
        let broken = Self.plan.replacingOccurrences(of: "\"duration\": 3600", with: "\"duration\": \"soon\"")
        let plan = try write(broken, to: "broken.json")
        let result = try await run(["plan", "apply", plan])
        #expect(result.status == 65)
        #expect(result.stderr.contains("broken.json") && result.stderr.contains("tasks[2]"))
        #expect(result.stderr.contains("nothing applied"))
        // Nothing written, not even an empty store.
        #expect(!FileManager.default.fileExists(atPath: storePath))
        let missing = try await run(["plan", "apply", directory.appendingPathComponent("absent.json").path])
        #expect(missing.status == 66)
    }

    @Test func refusesUnknownUnitsTypesAndImplausibleValuesWritingNothing() async throws {
        // Stone is read since #16; a unit nobody weighs in is not.
        let unknownUnit = try await run(["ingest", "bodyMass", "11", "hundredweight"])
        #expect(unknownUnit.status == 64 && unknownUnit.stderr.contains("unknown unit 'hundredweight'"))
        let unknownType = try await run(["ingest", "mood", "3", "kg"])
        #expect(unknownType.status == 64 && unknownType.stderr.contains("unknown quantity type 'mood'"))
        let fever = try await run(["ingest", "bodyTemperature", "46", "°C"])
        #expect(fever.status == 65 && fever.stderr.contains("25–45"))
        let heavy = try await run(["ingest", "bodyMass", "700", "kg"])
        #expect(heavy.status == 65)
        let heart = try await run(["ingest", "heartRate", "350", "bpm"])
        #expect(heart.status == 65)
        #expect(!FileManager.default.fileExists(atPath: storePath))  // nothing written, not even an empty store
    }

    @Test func versionGuardErrorExitsWithTaskAndDate() async throws {
        let plan = try write(Self.plan, to: "plan.json")
        #expect(try await run(["plan", "apply", plan]).status == 0)
        #expect(try await run(["ingest", "bodyMass", "72", "kg", "--at", "2026-11-10T07:30", "--force"]).status == 0)
        let retitled = try write(
            Self.plan.replacingOccurrences(of: "Weigh yourself", with: "Step on the scale"),
            to: "v2.json"
        )
        let result = try await run(["plan", "apply", retitled])
        #expect(result.status == 65)
        #expect(result.stderr.contains("weigh-in") && result.stderr.contains("2026-11-09T23:00:00"))
        let tasks = try #require(try await json(["tasks"]) as? [[String: Any]])
        #expect(tasks.first { $0["id"] as? String == "weigh-in" }?["title"] as? String == "Weigh yourself")
    }

    @Test func completeAndUncompleteByOccurrence() async throws {
        let plan = try write(Self.plan, to: "plan.json")
        #expect(try await run(["plan", "apply", plan]).status == 0)
        let done = try await run(["complete", "medication", "--occurrence", "9", "--at", "2026-11-10T12:00"])
        #expect(done.status == 0 && done.stdout.contains("medication #9"))
        let undone = try await run(["uncomplete", "medication", "--occurrence", "9", "--at", "2026-11-10T12:00"])
        #expect(undone.status == 0)
        let events = try #require(
            try await json(["events", "--from", "2026-11-10", "--to", "2026-11-10", "--task", "medication"])
                as? [[String: Any]]
        )
        #expect(events.map { $0["completed"] as? Bool } == [false])
        // Before the day's only window there is nothing to complete: the error lists the day's events.
        let early = try await run(["complete", "medication", "--at", "2026-11-10T06:00"])
        #expect(early.status == 1 && early.stderr.contains("no event"), "\(early.stderr)")
        #expect(early.stderr.contains("#9 ") && early.stderr.contains("(open)"), "\(early.stderr)")
        // After it, the undone dose is still open that day: a late completion takes it (#30 item 7).
        let late = try await run(["complete", "medication", "--at", "2026-11-10T12:00"])
        #expect(
            late.status == 0 && late.stdout.contains("medication #9") && late.stdout.contains("late"),
            "\(late.stdout)"
        )
    }

    @Test func defaultStoreLivesUnderXDGDataHomeWithPrivateModes() async throws {
        let data = directory.appendingPathComponent("xdg").path
        let result = try await CarebridgeProcess.run(
            ["ingest", "heartRate", "61", "bpm"],
            environment: ["XDG_DATA_HOME": data, "CAREBRIDGE_STORE": ""]
        )
        #expect(result.status == 0, "\(result.stderr)")
        let file = data + "/carebridge/store.sqlite"
        let fileMode = try #require(FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
        let directoryMode = try #require(
            FileManager.default.attributesOfItem(atPath: data + "/carebridge")[.posixPermissions] as? Int
        )
        #expect(fileMode & 0o777 == 0o600 && directoryMode & 0o777 == 0o700)
    }

    /// Starts `count` `carebridge ingest heartRate …` processes at once on the store and waits for all.
    /// - Returns: a line per process that failed or wrote to standard error.
    func ingestConcurrently(count: Int) async throws -> [String] {
        let processes = try (0..<count).map { index in
            // Distinct minutes so every reading is a distinct sample; all on one day's event.
            try ChildProcess(
                CarebridgeProcess.executable,
                [
                    "ingest", "heartRate", String(60 + index), "bpm", "--at",
                    String(format: "2026-11-10T10:%02d", index), "--force", "--store", storePath,
                ],
                environment: ["TZ": "Europe/Berlin"]
            )
        }
        var failures: [String] = []
        for process in processes {
            let output = await process.wait()
            if output.status != 0 || !output.stderr.isEmpty {
                failures.append("\(output.status): \(output.standardError)")
            }
        }
        return failures
    }

    @Test func concurrentIngestProcessesLoseNothingAndNeverReportALock() async throws {
        let plan = try write(Self.plan, to: "plan.json")
        #expect(try await run(["plan", "apply", plan]).status == 0)
        let count = 24
        let failures = try await ingestConcurrently(count: count)
        #expect(failures.isEmpty, "\(failures)")
        #expect(!failures.joined().contains("locked"))
        let samples = try #require(try await json(["samples", "--type", "heartRate"]) as? [[String: Any]])
        #expect(samples.count == count)
        let events = try #require(
            try await json(["events", "--from", "2026-11-10", "--to", "2026-11-10", "--task", "heart-rate"])
                as? [[String: Any]]
        )
        let values = try #require(events.first?["values"] as? [[String: Any]])
        #expect(values.count == count)
        #expect(values.compactMap { $0["value"] as? Double } == (0..<count).map { Double(60 + $0) })
    }

    /// Every command closes the store on its way out, and the last connection to close removes the `-wal` file:
    /// a user who may only read the store can open it at once. (An ingest reads asynchronously; before its
    /// readers' queues were drained at exit, about one ingest in eight left the `-wal` behind on a loaded machine.)
    @Test func everyIngestLeavesNoWALBehind() async throws {
        let plan = try write(Self.plan, to: "plan.json")
        #expect(try await run(["plan", "apply", plan]).status == 0)
        var left: [Int] = []
        for index in 0..<24 {
            let ingest = try await run([
                "ingest", "heartRate", String(60 + index), "bpm", "--at", String(format: "2026-11-10T11:%02d", index),
                "--force",
            ])
            #expect(ingest.status == 0, "\(ingest.stderr)")
            if FileManager.default.fileExists(atPath: storePath + "-wal") { left.append(index) }
        }
        #expect(left.isEmpty, "ingests that left store.sqlite-wal behind: \(left)")
    }

    @Test func concurrentProcessesCreatingTheStoreTogetherAllSucceed() async throws {
        // No store file yet: every process races to create it, set WAL and migrate.
        let count = 16
        let failures = try await ingestConcurrently(count: count)
        #expect(failures.isEmpty, "\(failures)")
        let samples = try #require(try await json(["samples"]) as? [[String: Any]])
        #expect(samples.count == count)
    }
}
