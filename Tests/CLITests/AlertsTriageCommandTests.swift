import Foundation
import TestSupport
import Testing

/// `alerts` as a care team triages them: most severe then newest first, `--severity`, several acknowledged at
/// once or a backlog before a date, and (across patients) whose alert it is.
@Suite(.serialized) struct AlertsTriageCommandTests {
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

    /// A daily weigh-in with an info, a warning and a critical threshold (for `patient`, when given).
    func apply(patient: (id: String, name: String)? = nil) async throws {
        let suffix = patient.map { "-\($0.id)" } ?? ""
        let header = patient.map { #""patient": {"id": "\#($0.id)", "name": "\#($0.name)"},"# } ?? ""
        let text = """
            {\(header)
             "tasks": [{"id": "weigh\(suffix)", "title": "Weigh yourself", "kind": "assessment",
               "schedule": {"timeZone": "Europe/Berlin",
                            "elements": [{"start": "2026-11-01T00:00:00", "interval": {"days": 1}, "duration": "allDay"}]},
               "linkage": {"type": "bodyMass", "unit": "kg", "aggregation": "first"},
               "alerts": [{"id": "over-60", "severity": "info", "when": {">": 60}},
                          {"id": "over-70", "severity": "warning", "when": {">": 70}},
                          {"id": "over-80", "severity": "critical", "when": {">": 80}}]}]}
            """
        let path = directory.appendingPathComponent("plan\(suffix).json").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let applied = try await run(["plan", "apply", path])
        #expect(applied.status == 0, "\(applied.stderr)")
    }

    func ingest(_ kilograms: String, patient: String? = nil) async throws {
        let result = try await run(
            ["ingest", "bodyMass", kilograms, "kg"] + (patient.map { ["--patient", $0] } ?? [])
        )
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test func alertsAreMostSevereThenNewestFirstAndFilteredBySeverity() async throws {
        try await apply()
        try await ingest("85")  // trips all three
        try await ingest("65")  // the info one, later: the same reading for a "first" event, judged all the same
        let alerts = try await json(["alerts"])
        #expect(alerts.map { $0["rule"] as? String } == ["over-80", "over-70", "over-60", "over-60"])
        #expect(alerts.map { $0["value"] as? Double } == [85, 85, 65, 85])
        let serious = try await json(["alerts", "--severity", "warning"])
        #expect(serious.map { $0["severity"] as? String } == ["critical", "warning"])
        let bad = try await run(["alerts", "--severity", "urgent"])
        #expect(bad.status == 64 && bad.stderr.contains("info, warning, critical"), "\(bad.stderr)")
    }

    @Test func severalAlertsOrABacklogAreAcknowledgedInOneCommand() async throws {
        try await apply()
        try await ingest("85")
        let ids = try await json(["alerts"]).compactMap { $0["id"] as? Int }
        #expect(ids.count == 3)
        let needsBefore = try await run(["alerts", "ack", "--all"])
        #expect(needsBefore.status == 64 && needsBefore.stderr.contains("--before"), "\(needsBefore.stderr)")
        // An unknown id among them acknowledges none.
        let unknown = try await run(["alerts", "ack", String(ids[0]), "999"])
        #expect(unknown.status == 1 && unknown.stderr.contains("no alert 999"), "\(unknown.stderr)")
        #expect(try await json(["alerts", "--days", "0"]).count == 3)
        let two = try await run(["alerts", "ack", String(ids[0]), String(ids[1]), "--by", "Nurse Kim"])
        #expect(two.status == 0, "\(two.stderr)")
        #expect(two.stdout.split(separator: "\n").filter { $0.hasPrefix("acknowledged alert ") }.count == 2)
        #expect(try await json(["alerts", "--days", "0"]).map { $0["id"] as? Int } == [ids[2]])
        // Everything before tomorrow: the one left.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Berlin")!
        let tomorrow = calendar.date(byAdding: .day, value: 1, to: Date())!
        let parts = calendar.dateComponents([.year, .month, .day], from: tomorrow)
        let day = String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
        let backlog = try await run(["alerts", "ack", "--all", "--before", day, "--by", "Nurse Kim"])
        #expect(backlog.status == 0 && backlog.stdout.contains("acknowledged 1 alert(s) before"), "\(backlog.stderr)")
        #expect(try await json(["alerts", "--days", "0"]).isEmpty)
        let again = try await run(["alerts", "ack", "--all", "--before", day])
        #expect(again.status == 0 && again.stdout.contains("no open alerts before"), "\(again.stderr)")
    }

    @Test func acrossPatientsEveryAlertNamesItsPatient() async throws {
        try await apply(patient: ("bed-1", "Anna Weber"))
        try await apply(patient: ("bed-2", "Otto Klein"))
        try await ingest("85", patient: "bed-1")
        try await ingest("75", patient: "bed-2")
        let alerts = try await json(["alerts"])
        #expect(alerts.map { $0["patient"] as? String } == ["bed-1", "bed-2", "bed-1", "bed-2", "bed-1"])
        #expect(
            alerts.map { $0["task"] as? String } == [
                "weigh-bed-1", "weigh-bed-2", "weigh-bed-1", "weigh-bed-2", "weigh-bed-1",
            ]
        )
        let table = try await run(["alerts", "--days", "0"])
        #expect(table.status == 0, "\(table.stderr)")
        let lines = table.stdout.split(separator: "\n")
        #expect(lines.first?.contains("PATIENT") == true, "\(table.stdout)")
        #expect(lines.dropFirst().filter { $0.contains("Anna Weber") }.count == 3, "\(table.stdout)")
        #expect(lines.dropFirst().filter { $0.contains("Otto Klein") }.count == 2, "\(table.stdout)")
        // One patient's alerts need no column.
        let one = try await run(["alerts", "--days", "0", "--patient", "bed-2"])
        #expect(
            one.status == 0 && !one.stdout.contains("PATIENT") && !one.stdout.contains("Otto Klein"),
            "\(one.stdout)"
        )
    }
}
