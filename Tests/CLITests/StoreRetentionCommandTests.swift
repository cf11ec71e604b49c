import Foundation
import TestSupport
import Testing

/// `carebridge store stats` / `store vacuum` and `samples` over aggregates, as the real executable on a real
/// store file, with a heart-rate recording moved ten days into the past.
@Suite struct StoreRetentionCommandTests {
    /// This test's directory, removed when the test ends.
    let scratch: ScratchDirectory
    var directory: URL { scratch.url }
    let storePath: String
    /// The recording's header: ten days ago, half a minute past a whole minute. The samples (2 s to 1201 s
    /// after it) then always span 21 one-minute buckets (a header 58 s past a minute gave 20, once in 60
    /// runs). Fixed once per test, so that replaying the recording again replays the same readings (a header
    /// taken anew could fall in the next minute and add a bucket).
    let recordedAt: Date

    init() throws {
        scratch = try ScratchDirectory("carebridge-retention-")
        storePath = scratch.url.appendingPathComponent("store.sqlite").path
        let tenDaysAgo = Date().addingTimeInterval(-10 * 86_400).timeIntervalSince1970
        recordedAt = Date(timeIntervalSince1970: (tenDaysAgo / 60).rounded(.down) * 60 + 30)
    }

    static let plan = """
        {"tasks": [{"id": "heart-rate", "title": "Heart rate", "kind": "assessment",
          "schedule": {"timeZone": "Europe/Berlin",
                       "elements": [{"start": "2026-01-01T00:00:00", "interval": {"days": 1}, "duration": "allDay"}]},
          "linkage": {"type": "heartRate", "unit": "bpm", "aggregation": "mean"}}],
         "retention": {"heartRate": {"keepRawDays": 3}}}
        """

    /// `YYYY-MM-DD` in Berlin, `days` days ago.
    static func daysAgo(_ days: Int) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.timeZone = TimeZone(identifier: "Europe/Berlin")
        return formatter.string(from: Date().addingTimeInterval(-Double(days) * 86_400))
    }

    func run(_ arguments: [String], stdin: String? = nil) async throws -> CarebridgeProcess.Result {
        try await CarebridgeProcess.run(
            arguments + ["--store", storePath],
            environment: ["TZ": "Europe/Berlin"],
            stdin: stdin
        )
    }

    func json(_ arguments: [String]) async throws -> Any {
        let result = try await run(arguments + ["--json"])
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    /// The 20-minute strap recording, its header moved to ten days ago (times in the file are relative to it).
    func recording() throws -> String {
        let source = PackageRoot.url.appendingPathComponent("Recordings/heart-rate-strap-20-minutes.jsonl")
        var lines = try String(contentsOf: source, encoding: .utf8).split(
            separator: "\n",
            omittingEmptySubsequences: false
        )
        .map(String.init)
        let tenDaysAgo = recordedAt
        let formatter = ISO8601DateFormatter()
        lines[0] = lines[0].replacingOccurrences(
            of: #""recordedAt": "2026-11-20T08:00:00+01:00""#,
            with: "\"recordedAt\": \"\(formatter.string(from: tenDaysAgo))\""
        )
        #expect(lines[0].contains(formatter.string(from: tenDaysAgo)))
        let path = directory.appendingPathComponent("strap.jsonl").path
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func setUp() async throws -> (rate: Int, rr: Int, events: [[String: Any]]) {
        let plan = directory.appendingPathComponent("plan.json").path
        try Data(Self.plan.utf8).write(to: URL(fileURLWithPath: plan))
        let applied = try await run(["plan", "apply", plan])
        #expect(applied.status == 0, "\(applied.stderr)")
        let replay = try await run(["replay", try recording()])
        #expect(replay.status == 0, "\(replay.stderr)")
        let samples = try #require(try await json(["samples"]) as? [[String: Any]])
        let events = try #require(
            try await json(["events", "--from", Self.daysAgo(12), "--to", "today"]) as? [[String: Any]]
        )
        return (
            samples.filter { $0["type"] as? String == "heartRate" }.count,
            samples.filter { $0["type"] as? String == "rrInterval" }.count,
            events.filter { ($0["values"] as? [Any])?.isEmpty == false }
        )
    }

    @Test func dryRunAndARefusalWithoutYesChangeNothingAndVacuumTwiceIsANoOp() async throws {
        let before = try await setUp()
        #expect(before.rate == 1200)
        let listed = try await run(["samples", "--json"]).stdout
        let dry = try #require(try await json(["store", "vacuum", "--dry-run"]) as? [String: Any])
        let steps = try #require(dry["steps"] as? [[String: Any]])
        #expect(steps.map { $0["type"] as? String } == ["heartRate"])
        #expect(steps.first?["samples"] as? Int == 1200)
        #expect(steps.first?["aggregates"] as? Int == 21)
        #expect(dry["deleted"] as? Int == 0)
        // Not a terminal and no --yes: refused, with what it would delete.
        let refused = try await run(["store", "vacuum"], stdin: "y\n")
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("vacuum would delete 1200 raw samples"))
        #expect(try await run(["samples", "--json"]).stdout == listed)
        #expect((try await json(["samples", "--type", "heartRate"]) as? [[String: Any]])?.count == 1200)

        let done = try #require(try await json(["store", "vacuum", "--yes"]) as? [String: Any])
        #expect(done["deleted"] as? Int == 1200)
        let after = try #require(try await json(["samples", "--type", "heartRate"]) as? [[String: Any]])
        #expect(after.count == 21)
        #expect(after.allSatisfy { $0["id"] == nil && $0["aggregate"] != nil })
        #expect(after.compactMap { ($0["aggregate"] as? [String: Any])?["count"] as? Int }.reduce(0, +) == 1200)
        // RR intervals have no rule: untouched.
        #expect((try await json(["samples", "--type", "rrInterval"]) as? [[String: Any]])?.count == before.rr)
        // The event completed before keeps its outcome.
        let events = try #require(
            try await json(["events", "--from", Self.daysAgo(12), "--to", "today"]) as? [[String: Any]]
        )
        func outcomes(_ events: [[String: Any]]) -> [String] {
            events.flatMap { ($0["values"] as? [[String: Any]]) ?? [] }.map { "\($0["value"]!) at \($0["at"]!)" }
        }
        #expect(!outcomes(before.events).isEmpty)
        #expect(outcomes(events) == outcomes(before.events))

        // Exports say when they serve aggregates.
        let csv = try await run(["export", "--format", "csv", "--type", "heartRate"])
        #expect(csv.status == 0, "\(csv.stderr)")
        let rows = csv.stdout.split(separator: "\r\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false)
        }
        #expect(rows.first?.suffix(3) == ["aggregate_count", "aggregate_min", "aggregate_max"])
        #expect(rows.count == 22)
        #expect(rows.dropFirst().compactMap { Int($0[16]) }.reduce(0, +) == 1200)
        #expect(rows.dropFirst().allSatisfy { $0[0].isEmpty })
        let fhir = try await run(["export", "--format", "fhir", "--type", "heartRate", "--subject", "Patient/p1"])
        #expect(fhir.status == 0, "\(fhir.stderr)")
        #expect(fhir.stdout.components(separatedBy: "retention aggregate").count - 1 == 21)
        #expect(fhir.stdout.contains("\"effectivePeriod\""))

        let vacuumed = try await run(["samples", "--json"]).stdout
        let again = try #require(try await json(["store", "vacuum", "--yes"]) as? [String: Any])
        #expect(again["deleted"] as? Int == 0)
        #expect(try await run(["samples", "--json"]).stdout == vacuumed)
        // Replaying the same recording again stores nothing twice.
        let replay = try await run(["replay", try recording()])
        #expect(replay.status == 0)
        #expect(replay.stderr.contains("not stored again"))
        #expect((try await json(["samples", "--type", "heartRate"]) as? [[String: Any]])?.count == 21)
    }

    @Test func statsShowsSizeByTypeAndWhatRetentionWouldFree() async throws {
        _ = try await setUp()
        let stats = try #require(try await json(["store", "stats"]) as? [String: Any])
        let types = try #require(stats["types"] as? [[String: Any]])
        let rate = try #require(types.first { $0["type"] as? String == "heartRate" })
        #expect(rate["samples"] as? Int == 1200)
        #expect((rate["estimatedBytes"] as? Int ?? 0) > 0)
        let retention = try #require(rate["retention"] as? [String: Any])
        #expect(retention["samplesToAggregate"] as? Int == 1200)
        #expect((retention["wouldFreeBytes"] as? Int ?? 0) > 0)
        let rr = try #require(types.first { $0["type"] as? String == "rrInterval" })
        #expect(rr["retention"] is NSNull)
        #expect((stats["file"] as? [String: Any])?["bytes"] as? Int ?? 0 > 0)
        let text = try await run(["store", "stats"])
        #expect(text.status == 0)
        #expect(text.stdout.contains("raw 3 d, then 1 min"))
        #expect(text.stdout.contains("kept"))
    }

    @Test func aPolicyErrorInThePlanFileNamesWhereAndAppliesNothing() async throws {
        let plan = directory.appendingPathComponent("bad.json").path
        try Data(#"{"retention": {"heartRate": {"keepRawDays": 30, "aggregateMinutes": 7}}}"#.utf8).write(
            to: URL(fileURLWithPath: plan)
        )
        let result = try await run(["plan", "apply", plan])
        #expect(result.status == 65)
        #expect(result.stderr.contains("retention.heartRate.aggregateMinutes: aggregateMinutes must divide a day"))
        #expect(!FileManager.default.fileExists(atPath: storePath))
    }
}
