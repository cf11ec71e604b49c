import Foundation
import TestSupport
import Testing

/// `complete` with answers, notes and "not done", and `alerts`, on real store files.
@Suite struct AssessmentCommandTests {
    /// This test's directory, removed when the test ends.
    let scratch: ScratchDirectory
    var directory: URL { scratch.url }
    let storePath: String

    init() throws {
        scratch = try ScratchDirectory("carebridge-cli-")
        storePath = scratch.url.appendingPathComponent("store.sqlite").path
    }

    static let plan = """
        {"tasks": [
          {"id": "pain", "title": "Back pain", "kind": "assessment",
           "schedule": {"timeZone": "Europe/Berlin",
                        "elements": [{"start": "2026-11-01T00:00:00", "interval": {"days": 1}, "duration": "allDay"}]},
           "answer": {"type": "scale", "min": 0, "max": 10, "labels": {"10": "worst"}},
           "alerts": [{"id": "high", "severity": "critical", "when": {">=": 7}, "message": "Pain {value} on {day}"}]},
          {"id": "medication", "title": "Take medication", "kind": "intervention",
           "schedule": {"timeZone": "Europe/Berlin",
                        "elements": [{"start": "2026-11-01T08:00:00", "interval": {"days": 1}, "duration": 3600}]}}
        ]}
        """

    func run(_ arguments: [String]) async throws -> CarebridgeProcess.Result {
        try await CarebridgeProcess.run(arguments + ["--store", storePath], environment: ["TZ": "Europe/Berlin"])
    }

    @Test func answersNotesNotDoneAndAlerts() async throws {
        let plan = directory.appendingPathComponent("plan.json")
        try Data(Self.plan.utf8).write(to: plan)
        #expect(try await run(["plan", "apply", plan.path]).status == 0)
        let answered = try await run([
            "complete", "pain", "--at", "2026-11-10T09:00", "--value", "8", "--note", "stairs",
        ])
        #expect(answered.status == 0, "\(answered.stderr)")
        #expect(answered.stdout.contains("answered pain #9 (2026-11-10 all day): 8/10 — note: stairs"))
        #expect(answered.stdout.contains("alert 1 (critical): Pain 8 on 2026-11-10"))
        let outside = try await run(["complete", "pain", "--at", "2026-11-11T09:00", "--value", "11"])
        #expect(outside.status == 65 && outside.stderr.contains("11 is outside the scale 0–10"))
        let future = try await run(["complete", "medication", "--at", "2099-11-11T08:10"])
        #expect(future.status == 64 && future.stderr.contains("--force"))
        let skipped = try await run(["complete", "medication", "--at", "2026-11-10T08:10", "--not-done", "felt dizzy"])
        #expect(skipped.stdout.contains("not done medication #9") && skipped.stdout.contains("felt dizzy"))

        let events = try await run(["events", "--from", "2026-11-10", "--to", "2026-11-10", "--json"])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(events.stdout.utf8)) as? [[String: Any]])
        let pain = try #require(list.first { $0["task"] as? String == "pain" })
        #expect(pain["note"] as? String == "stairs")
        #expect((pain["values"] as? [[String: Any]])?.first?["value"] as? Double == 8)
        let medication = try #require(list.first { $0["task"] as? String == "medication" })
        #expect(medication["notDone"] as? String == "felt dizzy" && medication["completed"] as? Bool == false)

        let alerts = try await run(["alerts", "--json", "--days", "0"])
        let open = try #require(try JSONSerialization.jsonObject(with: Data(alerts.stdout.utf8)) as? [[String: Any]])
        #expect(open.count == 1)
        #expect(open.first?["rule"] as? String == "high" && open.first?["ruleVersion"] as? Int == 1)
        #expect(open.first?["state"] as? String == "open" && open.first?["value"] as? Double == 8)
        let ack = try await run(["alerts", "ack", "1", "--by", "Nurse Kim"])
        #expect(ack.status == 0 && ack.stdout.contains("acknowledged alert 1 by Nurse Kim"))
        #expect(try await run(["alerts", "--days", "0"]).stdout.contains("no open alerts"))
        #expect(try await run(["alerts", "ack", "7"]).status == 1)
        // A correction withdraws the alert.
        let corrected = try await run(["complete", "pain", "--at", "2026-11-10T09:00", "--value", "3"])
        #expect(corrected.stdout.contains("(corrected)") && corrected.stdout.contains("alert 1 withdrawn"))
        // Nothing listens on port 1: the notification stays queued and the exit status says so.
        _ = try await run(["complete", "pain", "--at", "2026-11-12T09:00", "--value", "9"])
        let deliver = try await run(["alerts", "deliver", "--webhook", "http://127.0.0.1:1/hook", "--wait", "0"])
        #expect(deliver.status == 75 && deliver.stderr.contains("1 webhook notification(s) still pending"))
    }

    @Test func aReplayedReadingRaisesAnAlertAndDeletingItWithdrawsIt() async throws {
        let plan = directory.appendingPathComponent("weigh.json")
        try Data(
            """
            {"tasks": [{"id": "weigh-in", "title": "Weigh yourself", "kind": "assessment",
               "schedule": {"timeZone": "Europe/Berlin", "elements": [{"start": "2026-11-01T00:00", "interval": {"days": 1}, "duration": "allDay"}]},
               "linkage": {"type": "bodyMass", "unit": "kg", "aggregation": "first"},
               "alerts": [{"id": "heavy", "when": {">": 70, "unit": "kg"}}]}]}
            """.utf8
        ).write(to: plan)
        let replay = try await run([
            "replay", "--plan", plan.path, ReplayCommandTests.recording("weight-scale-morning-weigh-in.jsonl"),
        ])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stdout.contains("alert 1 (warning): Weigh yourself: 72.5 kg (> 70 kg)"))
        let samples = try await run(["samples", "--type", "bodyMass", "--json"])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(samples.stdout.utf8)) as? [[String: Any]])
        let id = try #require(list.first?["id"] as? String)
        let deleted = try await run(["samples", "delete", id])
        #expect(deleted.stdout.contains("alert 1 withdrawn"), "\(deleted.stdout)\(deleted.stderr)")
    }

    @Test func insightsAndTheReportFromTheCommandLine() async throws {
        let plan = directory.appendingPathComponent("plan.json")
        try Data(Self.plan.utf8).write(to: plan)
        #expect(try await run(["plan", "apply", plan.path]).status == 0)
        for day in 16...22 {
            _ = try await run(["complete", "pain", "--at", "2026-11-\(day)T09:00", "--value", String(day % 9)])
            _ = try await run(["complete", "medication", "--at", "2026-11-\(day)T08:10"])
        }
        let insights = try await run(["insights", "--from", "2026-11-16", "--to", "2026-11-22"])
        #expect(insights.status == 0, "\(insights.stderr)")
        #expect(insights.stdout.contains("Insights 2026-11-16 – 2026-11-22 (before: 2026-11-09 – 2026-11-15)"))
        #expect(insights.stdout.contains("7/7 100%") && insights.stdout.contains("critical: Pain 7 on 2026-11-16"))
        let json = try await run(["insights", "--from", "2026-11-16", "--to", "2026-11-22", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((object["days"] as? [String])?.count == 7 && (object["tasks"] as? [Any])?.count == 2)

        let pdf = directory.appendingPathComponent("out/report.pdf").path
        try FileManager.default.createDirectory(
            atPath: directory.appendingPathComponent("out").path,
            withIntermediateDirectories: true
        )
        let report = try await run([
            "report", "--from", "2026-11-16", "--to", "2026-11-22", "--format", "pdf", "--out", pdf, "--patient",
            "Jo Example",
        ])
        #expect(report.status == 0, "\(report.stderr)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: pdf))
        #expect(bytes.starts(with: Data("%PDF-1.4".utf8)))
        let mode = try FileManager.default.attributesOfItem(atPath: pdf)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let html = directory.appendingPathComponent("out/report.html").path
        #expect(try await run(["report", "--format", "html", "--out", html, "--patient", "Jo Example"]).status == 0)
        let daily = try String(contentsOfFile: html, encoding: .utf8)
        #expect(daily.contains("Patient: Jo Example") && daily.contains("<h2>Readings per day</h2>"))
        // --readings: every reading one by one instead of a row per day.
        #expect(try await run(["report", "--format", "html", "--readings", "--out", html]).status == 0)
        let every = try String(contentsOfFile: html, encoding: .utf8)
        #expect(every.contains("<h2>Readings</h2>") && !every.contains("Readings per day"))
        // The store is never overwritten by a report; a missing directory is a clear error.
        let onStore = try await run(["report", "--format", "pdf", "--out", storePath])
        #expect(onStore.status == 73)
        let nowhere = try await run(["report", "--format", "pdf", "--out", "/nonexistent-dir/report.pdf"])
        #expect(nowhere.status == 73 && !nowhere.stderr.isEmpty)
        #expect(try await run(["report", "--format", "pdf", "--out", pdf, "--page", "a3"]).status == 64)
    }
}
