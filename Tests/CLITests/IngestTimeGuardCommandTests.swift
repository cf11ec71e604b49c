import Foundation
import TestSupport
import Testing

/// `ingest --at` is guarded as `complete --at` is: a time in the future, or more than 7 days ago (a year typed
/// wrong), is refused without `--force`, and the refusal says what recording it would re-evaluate.
@Suite(.serialized) struct IngestTimeGuardCommandTests {
    let scratch: ScratchDirectory
    let storePath: String

    init() throws {
        scratch = try ScratchDirectory("carebridge-cli-")
        storePath = scratch.url.appendingPathComponent("store.sqlite").path
    }

    func run(_ arguments: [String]) async throws -> CarebridgeProcess.Result {
        try await CarebridgeProcess.run(arguments + ["--store", storePath], environment: ["TZ": "Europe/Berlin"])
    }

    /// `2026-11-20T07:30` in Berlin, `days` from now.
    static func wallClock(daysFromNow days: Double) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "Europe/Berlin")!
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm"
        return formatter.string(from: Date().addingTimeInterval(days * 86_400))
    }

    func samples() async throws -> [[String: Any]] {
        let result = try await run(["samples", "--json", "--from", "2000-01-01", "--to", "2100-01-01"])
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
    }

    @Test func aReadingInTheFutureIsRefusedWithoutForceAndCreatesNoStore() async throws {
        let ahead = Self.wallClock(daysFromNow: 365)
        let refused = try await run(["ingest", "bodyMass", "72", "kg", "--at", ahead])
        #expect(refused.status == 64, "\(refused.stderr)")
        #expect(refused.stderr.contains("in the future") && refused.stderr.contains("--force"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: storePath))
        let forced = try await run(["ingest", "bodyMass", "72", "kg", "--at", ahead, "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try await samples().count == 1)
    }

    @Test func aReadingMoreThanAWeekOldSaysWhatItWouldReEvaluateAndNeedsForce() async throws {
        let plan = scratch.url.appendingPathComponent("plan.json")
        try Data(
            """
            {"tasks": [{"id": "weigh-in", "title": "Weigh yourself", "kind": "assessment",
              "schedule": {"timeZone": "Europe/Berlin",
                           "elements": [{"start": "2020-01-01T00:00:00", "interval": {"days": 1}, "duration": "allDay"}]},
              "linkage": {"type": "bodyMass", "unit": "kg", "aggregation": "first"},
              "alerts": [{"id": "heavy", "when": {">": 90}}]},
             {"id": "medication", "title": "Medication", "kind": "intervention",
              "schedule": {"timeZone": "Europe/Berlin",
                           "elements": [{"start": "2020-01-01T08:00:00", "interval": {"days": 1}, "duration": 7200}]},
              "alerts": [{"id": "missed", "adherence": {"fewerThan": 1}}]}]}
            """.utf8
        ).write(to: plan)
        #expect(try await run(["plan", "apply", plan.path]).status == 0)
        let typo = Self.wallClock(daysFromNow: -365)
        let refused = try await run(["ingest", "bodyMass", "72", "kg", "--at", typo])
        #expect(refused.status == 64, "\(refused.stderr)")
        for part in [
            "365 days ago (more than 7)", "could complete past events of 'weigh-in'",
            "would re-evaluate the alert rules of 'medication' and 'weigh-in'", "(366 days)", "--force",
        ] {
            #expect(refused.stderr.contains(part), "\(part): \(refused.stderr)")
        }
        #expect(try await samples().isEmpty, "nothing recorded")
        // Six days ago needs nothing; a year ago with --force is recorded.
        let recent = try await run(["ingest", "bodyMass", "72", "kg", "--at", Self.wallClock(daysFromNow: -6)])
        #expect(recent.status == 0, "\(recent.stderr)")
        let forced = try await run(["ingest", "bodyMass", "73", "kg", "--at", typo, "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try await samples().count == 2)
    }
}
