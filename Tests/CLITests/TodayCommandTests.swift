import Foundation
import TestSupport
import Testing

/// `carebridge today` across patients, `patients` in natural order, and `complete` of a dose taken late.
@Suite(.serialized) struct TodayCommandTests {
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

    /// The same ward protocol for a patient (the same task ids for every patient: they are unique per patient):
    /// medication 08:00–10:00 and 20:00–22:00, a daily pain score that alerts (critical) at 7 or more.
    func admit(_ id: String, name: String) async throws {
        let text = """
            {"patient": {"id": "\(id)", "name": "\(name)"},
             "tasks": [{"id": "medication", "title": "Take medication", "kind": "intervention",
                        "schedule": {"timeZone": "Europe/Berlin", "elements": [
                          {"start": "2026-11-01T08:00:00", "interval": {"days": 1}, "duration": 7200},
                          {"start": "2026-11-01T20:00:00", "interval": {"days": 1}, "duration": 7200}]}},
                       {"id": "pain", "title": "Pain score", "kind": "assessment",
                        "answer": {"type": "scale", "min": 0, "max": 10},
                        "schedule": {"timeZone": "Europe/Berlin", "elements": [
                          {"start": "2026-11-01T00:00:00", "interval": {"days": 1}, "duration": "allDay"}]},
                        "alerts": [{"id": "high", "severity": "critical", "when": {">=": 7}}]}]}
            """
        let path = directory.appendingPathComponent("\(id).json").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let applied = try await run(["plan", "apply", path])
        #expect(applied.status == 0, "\(applied.stderr)")
    }

    func json(_ arguments: [String]) async throws -> [[String: Any]] {
        let result = try await run(arguments + ["--json"])
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
    }

    @Test func theWardsDayShowsDoneDueLateAndMissedPerPatientByNameWithOpenAlerts() async throws {
        try await admit("bed-10", name: "Zoe Adams")
        try await admit("bed-2", name: "Jürgen Weiß")
        #expect(try await json(["patients"]).map { $0["id"] as? String } == ["bed-2", "bed-10"])
        let dose = try await run(["complete", "medication", "--patient", "bed-2", "--at", "2026-11-20T08:30"])
        #expect(dose.status == 0, "\(dose.stderr)")
        let pain = try await run([
            "complete", "pain", "--patient", "bed-2", "--value", "8", "--at", "2026-11-20T09:00",
        ])
        #expect(pain.status == 0, "\(pain.stderr)")

        let noon = try await json(["today", "--at", "2026-11-20T12:00"])
        #expect(noon.map { $0["patient"] as? String } == ["bed-2", "bed-10"])
        #expect(noon.map { $0["name"] as? String } == ["Jürgen Weiß", "Zoe Adams"])
        let counts = noon.map { $0["counts"] as? [String: Int] ?? [:] }
        #expect(counts[0] == ["done": 2, "notDone": 0, "due": 1, "late": 0, "missed": 0])
        #expect(counts[1] == ["done": 0, "notDone": 0, "due": 2, "late": 1, "missed": 0])
        #expect(noon.map { $0["openAlerts"] as? Int } == [1, 0])
        #expect(noon.first?["worstAlert"] as? String == "critical")
        let states = (noon[1]["events"] as? [[String: Any]] ?? []).map { "\($0["task"]!) \($0["state"]!)" }
        #expect(states == ["pain due", "medication late", "medication due"])

        // The next morning, the 20th's open events were missed.
        let after = try await json(["today", "--day", "2026-11-20", "--at", "2026-11-21T09:00", "--patient", "bed-10"])
        #expect(
            after.map { $0["counts"] as? [String: Int] } == [
                ["done": 0, "notDone": 0, "due": 0, "late": 0, "missed": 3]
            ]
        )

        let text = try await run(["today", "--at", "2026-11-20T12:00"])
        #expect(text.status == 0, "\(text.stderr)")
        let lines = text.stdout.split(separator: "\n").map(String.init)
        let headings = lines.filter { !$0.hasPrefix(" ") && $0.contains("): ") }
        #expect(
            headings == [
                "Jürgen Weiß (bed-2): 2 done, 1 due, 0 late, 0 missed; 1 open alert (critical)",
                "Zoe Adams (bed-10): 0 done, 2 due, 1 late, 0 missed; no open alerts",
            ],
            "\(text.stdout)"
        )
        #expect(
            lines.contains { $0.contains("late") && $0.contains("08:00–10:00") && $0.contains("medication") }
        )
    }

    @Test func aDoseTakenLateCompletesTheMorningsOpenEventOrTheErrorNamesTheDaysEvents() async throws {
        try await admit("bed-2", name: "Jürgen Weiß")
        let late = try await run(["complete", "medication", "--at", "2026-11-20T11:30"])
        #expect(late.status == 0, "\(late.stderr)")
        #expect(late.stdout.contains("completed medication #"), "\(late.stdout)")
        #expect(
            late.stdout.contains("2026-11-20 08:00–10:00") && late.stdout.contains("late, at 11:30"),
            "\(late.stdout)"
        )
        let again = try await run(["complete", "medication", "--at", "2026-11-20T11:45"])
        #expect(again.status == 1)
        #expect(
            again.stderr.contains("08:00–10:00 (recorded)") && again.stderr.contains("20:00–22:00 (open)"),
            "\(again.stderr)"
        )
        let events = try await run(["events", "--from", "today"])
        #expect(events.status == 0, "\(events.stderr)")
    }

    @Test func aTaskIDSeveralPatientsShareNeedsThePatientAndEachPatientKeepsTheirOwnEvents() async throws {
        try await admit("bed-2", name: "Jürgen Weiß")
        try await admit("bed-10", name: "Zoe Adams")
        let again = try await run(["plan", "apply", directory.appendingPathComponent("bed-10.json").path])
        #expect(again.status == 0 && !again.stdout.contains("added"), "\(again.stdout)\(again.stderr)")

        // Without --patient, a task id both patients have names neither: the error lists them.
        for arguments in [["complete", "medication", "--at", "2026-11-20T08:30"], ["events", "--task", "medication"]] {
            let ambiguous = try await run(arguments)
            #expect(ambiguous.status != 0)
            #expect(
                ambiguous.stderr.contains("2 patients (bed-2, bed-10)") && ambiguous.stderr.contains("--patient"),
                "\(ambiguous.stderr)"
            )
        }
        let done = try await run(["complete", "medication", "--patient", "bed-10", "--at", "2026-11-20T08:30"])
        #expect(done.status == 0, "\(done.stderr)")
        #expect(done.stdout.contains("completed medication #"), "\(done.stdout)")

        func doneMedication(_ patient: String) async throws -> [Bool] {
            let events = try await json([
                "events", "--patient", patient, "--task", "medication", "--from", "2026-11-20T00:00", "--to",
                "2026-11-20T12:00",
            ])
            #expect(events.allSatisfy { $0["task"] as? String == "medication" })
            return events.map { $0["completed"] as? Bool ?? false }
        }
        #expect(try await doneMedication("bed-10") == [true])
        #expect(try await doneMedication("bed-2") == [false])
        let tasks = try await json(["tasks", "--patient", "bed-10"])
        #expect(tasks.compactMap { $0["id"] as? String }.sorted() == ["medication", "pain"])
    }
}
