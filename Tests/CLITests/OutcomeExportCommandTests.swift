import Foundation
import Testing

/// `export --format fhir` carries the care plan's outcomes, not only samples: an intervention done as a Task,
/// an answer as a survey Observation, both for the subject, accepted by the independent R4 validator.
@Suite struct OutcomeExportCommandTests {
    let directory: URL
    let storePath: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "carebridge-outcomes-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        storePath = directory.appendingPathComponent("store.sqlite").path
    }

    func run(_ arguments: [String]) throws -> CarebridgeProcess.Result {
        try CarebridgeProcess.run(arguments + ["--store", storePath], environment: ["TZ": "Europe/Berlin"])
    }

    @Test func interventionsAndAnswersAreExportedAsTasksAndSurveyObservations() throws {
        let plan = directory.appendingPathComponent("plan.json")
        try Data(AssessmentCommandTests.plan.utf8).write(to: plan)
        #expect(try run(["plan", "apply", plan.path]).status == 0)
        #expect(try run(["complete", "medication", "--at", "2026-11-10T08:30"]).status == 0)
        let answered = try run(["complete", "pain", "--at", "2026-11-10T09:00", "--value", "8", "--note", "stairs"])
        #expect(answered.status == 0, "\(answered.stderr)")
        let out = directory.appendingPathComponent("bundle.json").path
        let result = try run([
            "export", "--format", "fhir", "--bundle", "transaction", "--subject", "Patient/p1", "--from",
            "2026-11-10", "--to", "2026-11-10", "--out", out,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("with 2 care-plan outcomes"), "\(result.stderr)")
        let bundle =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [String: Any]
        let resources = try #require(bundle?["entry"] as? [[String: Any]]).compactMap {
            $0["resource"] as? [String: Any]
        }
        let task = try #require(resources.first { $0["resourceType"] as? String == "Task" })
        #expect(task["status"] as? String == "completed")
        #expect((task["for"] as? [String: Any])?["reference"] as? String == "Patient/p1")
        #expect((task["executionPeriod"] as? [String: Any])?["start"] as? String == "2026-11-10T08:30:00+01:00")
        let answer = try #require(resources.first { $0["resourceType"] as? String == "Observation" })
        #expect(answer["valueInteger"] as? Int == 8)
        #expect((answer["code"] as? [String: Any])?["text"] as? String == "Back pain")
        #expect(((answer["note"] as? [[String: Any]])?.first)?["text"] as? String == "stairs")
        #expect((answer["subject"] as? [String: Any])?["reference"] as? String == "Patient/p1")

        guard PythonTool.validatorsRequired else { return }
        let validation = try PythonTool.python([ExportCommandTests.validator, out])
        #expect(validation.status == 0, "R4 validator: \(validation.stderr)")
    }
}
