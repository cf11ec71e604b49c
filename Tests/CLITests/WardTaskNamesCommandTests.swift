import Foundation
import TestSupport
import Testing

/// A ward (docs/ward-plans.md): one plan file for two beds, so bed 2's tasks have the keys `weigh-in@bed-2` and
/// `medication@bed-2`. What a nurse reads about bed 2 (insights, the report in HTML and PDF, `alerts`, the alert
/// message's `{task}`, the FHIR code's display) names the task `weigh-in` and `medication`; what scripts and
/// servers match on (`alerts --json` `task`, `insights --json` `id`, FHIR identifiers and codes) stays the key,
/// built the same way as bed 1's.
@Suite(.serialized) struct WardTaskNamesCommandTests {
    let scratch: ScratchDirectory
    let storePath: String

    init() throws {
        scratch = try ScratchDirectory("carebridge-ward-")
        storePath = scratch.path("store.sqlite")
    }

    func run(_ arguments: [String]) async throws -> CarebridgeProcess.Result {
        let result = try await CarebridgeProcess.run(
            arguments + ["--store", storePath],
            environment: ["TZ": "Europe/Berlin"]
        )
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return result
    }

    func json(_ arguments: [String]) async throws -> Any {
        let result = try await run(arguments + ["--json"])
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    /// Both beds on the same file, each weighed 72.5 kg at 07:30 (typed in; it trips `heavy`; bed 2's is a
    /// reading of its own, not "already recorded") and given their medication on 20 Nov.
    func admitTwoBeds() async throws {
        let ward = """
            {"tasks": [
              {"id": "weigh-in", "title": "Weigh yourself", "kind": "assessment",
               "schedule": {"timeZone": "Europe/Berlin",
                            "elements": [{"start": "2026-11-01T00:00:00", "interval": {"days": 1}, "duration": "allDay"}]},
               "linkage": {"type": "bodyMass", "unit": "kg", "aggregation": "first"},
               "alerts": [{"id": "heavy", "when": {">": 70, "unit": "kg"}, "message": "{task}: {value}{unitSuffix}"}]},
              {"id": "medication", "title": "Take the tablets", "kind": "intervention",
               "schedule": {"timeZone": "Europe/Berlin",
                            "elements": [{"start": "2026-11-01T08:00:00", "interval": {"days": 1}, "duration": 7200}]}}
            ]}
            """
        let file = scratch.path("ward.json")
        try Data(ward.utf8).write(to: URL(fileURLWithPath: file))
        for bed in ["bed-1", "bed-2"] {
            _ = try await run(["patients", "add", bed, "--name", "Patient \(bed)"])
            _ = try await run(["plan", "apply", "--patient", bed, file])
            _ = try await run([
                "ingest", "bodyMass", "72.5", "kg", "--patient", bed, "--at", "2026-11-20T07:30", "--force",
            ])
            _ = try await run(["complete", "medication", "--patient", bed, "--at", "2026-11-20T08:30"])
        }
    }

    static let period = ["--from", "2026-11-20", "--to", "2026-11-20"]

    @Test func bedTwosInsightsReportAlertsAndFHIRNameItsTasksAsThePlanDoesWithTheKeysUnchanged() async throws {
        try await admitTwoBeds()

        // Alerts: the key for scripts (as before), the name beside it and in what people read.
        let alerts = try #require(try await json(["alerts", "--patient", "bed-2", "--days", "0"]) as? [[String: Any]])
        #expect(alerts.map { $0["task"] as? String } == ["weigh-in@bed-2"])
        #expect(alerts.map { $0["taskName"] as? String } == ["weigh-in"])
        #expect(alerts.map { $0["message"] as? String } == ["weigh-in: 72.5 kg"])
        let first = try #require(try await json(["alerts", "--patient", "bed-1", "--days", "0"]) as? [[String: Any]])
        #expect(
            first.map { $0["task"] as? String } == ["weigh-in"]
                && first.map { $0["taskName"] as? String } == ["weigh-in"]
        )
        let listed = try await run(["alerts", "--patient", "bed-2", "--days", "0"]).stdout
        #expect(listed.contains("weigh-in/heavy v1") && !listed.contains("@bed-2"), "\(listed)")
        let everyone = try await run(["alerts", "--days", "0"]).stdout
        #expect(everyone.contains("PATIENT") && !everyone.contains("@bed-2"), "\(everyone)")

        // Insights: the name in the TASK column and the JSON's `name`; `id` stays the key.
        let insights = try #require(
            try await json(["insights", "--patient", "bed-2"] + Self.period) as? [String: Any]
        )
        let tasks = insights["tasks"] as? [[String: Any]] ?? []
        #expect(tasks.map { $0["id"] as? String } == ["medication@bed-2", "weigh-in@bed-2"])
        #expect(tasks.map { $0["name"] as? String } == ["medication", "weigh-in"])
        let messages = (insights["messages"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "alert" }
        #expect(messages.map { $0["taskName"] as? String } == ["weigh-in"])
        #expect(messages.map { $0["task"] as? String } == ["weigh-in@bed-2"])
        let text = try await run(["insights", "--patient", "bed-2"] + Self.period).stdout
        #expect(text.contains("weigh-in !") && text.contains("medication") && !text.contains("@bed-2"), "\(text)")

        // The report, HTML and PDF (the same content): the alert's message names the task as the plan does.
        let html = scratch.path("bed-2.html")
        _ = try await run(["report", "--patient", "bed-2", "--format", "html", "--out", html] + Self.period)
        let page = try String(contentsOfFile: html, encoding: .utf8)
        #expect(page.contains("weigh-in: 72.5 kg") && !page.contains("@bed-2"))
        let pdf = scratch.path("bed-2.pdf")
        _ = try await run(["report", "--patient", "bed-2", "--format", "pdf", "--out", pdf] + Self.period)
        let extracted = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/pdftotext"), [pdf, "-"])
        #expect(extracted.status == 0, "\(extracted.standardError)")
        #expect(
            extracted.standardOutput.contains("weigh-in: 72.5 kg") && !extracted.standardOutput.contains("@bed-2"),
            "\(extracted.standardOutput)"
        )

        // FHIR: the Task's code display is the name; its code and identifier stay on the key, built as
        // bed 1's are from its key.
        func task(_ bed: String) async throws -> [String: Any] {
            let out = scratch.path("\(bed).fhir.json")
            _ = try await run([
                "export", "--patient", bed, "--format", "fhir", "--out", out, "--subject", "Patient/\(bed)",
            ])
            let bundle = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out)))
            let entries = (bundle as? [String: Any])?["entry"] as? [[String: Any]] ?? []
            let resources = entries.compactMap { $0["resource"] as? [String: Any] }
            return try #require(resources.first { $0["resourceType"] as? String == "Task" })
        }
        func coding(_ task: [String: Any]) -> [String: Any] {
            ((task["code"] as? [String: Any])?["coding"] as? [[String: Any]])?.first ?? [:]
        }
        func identifier(_ task: [String: Any]) -> String {
            ((task["identifier"] as? [[String: Any]])?.first?["value"] as? String) ?? ""
        }
        let bed1 = try await task("bed-1")
        let bed2 = try await task("bed-2")
        #expect(coding(bed1)["code"] as? String == "medication" && coding(bed1)["display"] as? String == "medication")
        #expect(coding(bed2)["code"] as? String == "medication@bed-2")
        #expect(coding(bed2)["display"] as? String == "medication")
        #expect(identifier(bed1) == "medication@2026-11-20T07:00:00+00:00")
        #expect(identifier(bed2) == "medication@bed-2@2026-11-20T07:00:00+00:00")
        #expect((bed2["code"] as? [String: Any])?["text"] as? String == "Take the tablets")
    }
}
