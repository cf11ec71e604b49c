import Foundation
import TestSupport
import Testing

/// Alerts per patient (`alerts --patient`, rules on that patient's readings) and the sharing audit written by
/// itself: an alert delivered to a broker is shared with nobody (e-mail to the contacts: see
/// `AlertsEmailCommandTests`), a report written `--share-with` a contact is shared with them. Two patients, a
/// weigh-in replayed for one of them.
@Suite(.serialized) struct AlertsPerPatientCommandTests {
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

    func json(_ arguments: [String]) async throws -> [[String: Any]] {
        let result = try await run(arguments + ["--json"])
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
    }

    /// A patient whose daily weigh-in alerts above 70 kg; the GP receives alerts and reports, the partner nothing.
    func apply(patient: String) async throws {
        let text = """
            {"patient": {"id": "\(patient)", "name": "\(patient.capitalized)"},
             "contacts": [{"id": "\(patient)-gp", "name": "Dr. Gray", "category": "careTeam", "role": "physician",
                           "receives": ["reports", "alerts"]},
                          {"id": "\(patient)-family", "name": "Sam", "category": "personal", "role": "partner"}],
             "tasks": [{"id": "weigh-\(patient)", "title": "Weigh yourself", "kind": "assessment",
               "schedule": {"timeZone": "Europe/Berlin",
                            "elements": [{"start": "2026-11-01T00:00:00", "interval": {"days": 1}, "duration": "allDay"}]},
               "linkage": {"type": "bodyMass", "unit": "kg", "aggregation": "first"},
               "alerts": [{"id": "heavy", "when": {">": 70, "unit": "kg"}}]}]}
            """
        let path = directory.appendingPathComponent("\(patient).json").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let applied = try await run(["plan", "apply", path])
        #expect(applied.status == 0, "\(applied.stderr)")
    }

    @Test func alertsArePerPatientAndSharingThemOrAReportIsAudited() async throws {
        try await apply(patient: "alice")
        try await apply(patient: "bob")
        // Bob weighs 72.5 kg: his rule trips, Alice's (same threshold) has no reading to trip on.
        let replay = try await run([
            "replay", "--patient", "bob", ReplayCommandTests.recording("weight-scale-morning-weigh-in.jsonl"),
        ])
        #expect(replay.status == 0, "\(replay.stderr)")
        let bobs = try await json(["alerts", "--patient", "bob", "--days", "0"])
        #expect(bobs.map { $0["task"] as? String } == ["weigh-bob"])
        #expect(try await json(["alerts", "--patient", "alice", "--days", "0"]).isEmpty)
        #expect(try await json(["alerts", "--days", "0"]).count == 1, "without --patient: every patient's")
        let id = try #require(bobs.first?["id"] as? Int)
        let wrong = try await run(["alerts", "ack", String(id), "--patient", "alice"])
        #expect(wrong.status == 1 && wrong.stderr.contains("not one of patient 'alice'"), "\(wrong.stderr)")

        // Delivered to a real broker: a broker is nobody's inbox, so nothing is shared with Bob's GP.
        let broker = try MosquittoBroker()
        try broker.start()
        defer { broker.stop() }
        let deliver = try await run([
            "alerts", "deliver", "--mqtt", "mqtt://127.0.0.1:\(broker.port)", "--wait", "20",
        ])
        #expect(deliver.status == 0, "\(deliver.stderr)")
        #expect(try await json(["shared"]).isEmpty, "an alert that only went to a broker was shared with nobody")

        // A report for a contact who does not exist is refused before anything is written.
        let out = directory.appendingPathComponent("bob.html").path
        let mistyped = try await run([
            "report", "--patient", "bob", "--format", "html", "--out", out, "--share-with", "gp",
        ])
        #expect(mistyped.status == 1 && mistyped.stderr.contains("bob-gp"), "\(mistyped.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        let report = try await run([
            "report", "--patient", "bob", "--from", "2026-11-14", "--to", "2026-11-20", "--format", "html", "--out",
            out,
            "--share-with", "bob-gp",
        ])
        #expect(report.status == 0, "\(report.stderr)")
        let after = try await json(["shared", "--patient", "bob"])
        #expect(after.map { $0["what"] as? String } == ["report"])
        #expect(after.last?["channel"] as? String == "file")
        #expect((after.last?["detail"] as? String)?.hasSuffix(out) == true)
        #expect(try await json(["shared", "--patient", "alice"]).isEmpty)
    }
}
