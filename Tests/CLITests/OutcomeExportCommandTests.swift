import CareStore
import Foundation
import Logging
import TestSupport
import Testing

/// `export --format fhir` carries the care plan's outcomes, not only samples: an intervention done as a Task,
/// an answer as a survey Observation, both for the subject, accepted by the independent R4 validator.
@Suite struct OutcomeExportCommandTests {
    /// This test's directory, removed when the test ends.
    let scratch: ScratchDirectory
    var directory: URL { scratch.url }
    let storePath: String

    init() throws {
        scratch = try ScratchDirectory("carebridge-outcomes-")
        storePath = scratch.url.appendingPathComponent("store.sqlite").path
    }

    func run(_ arguments: [String]) async throws -> CarebridgeProcess.Result {
        try await CarebridgeProcess.run(arguments + ["--store", storePath], environment: ["TZ": "Europe/Berlin"])
    }

    @Test func interventionsAndAnswersAreExportedAsTasksAndSurveyObservations() async throws {
        let plan = directory.appendingPathComponent("plan.json")
        try Data(AssessmentCommandTests.plan.utf8).write(to: plan)
        #expect(try await run(["plan", "apply", plan.path]).status == 0)
        #expect(try await run(["complete", "medication", "--at", "2026-11-10T08:30"]).status == 0)
        let answered = try await run([
            "complete", "pain", "--at", "2026-11-10T09:00", "--value", "8", "--note", "stairs",
        ])
        #expect(answered.status == 0, "\(answered.stderr)")
        let out = directory.appendingPathComponent("bundle.json").path
        let result = try await run([
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
        let validation = try await PythonTool.python([ExportCommandTests.validator, out])
        #expect(validation.status == 0, "R4 validator: \(validation.stderr)")
    }
}

/// Without --subject, the store's patient is every resource's subject: the vital signs' and the outcomes' alike.
@Suite struct OutcomeExportPatientTests {
    @Test func outcomesNameTheStoresPatientAsVitalSignsDoAndNoFalseWarningIsGiven() async throws {
        let scratch = try ScratchDirectory("carebridge-outcomes-patient-")
        let storePath = scratch.url.appendingPathComponent("store.sqlite").path
        func run(_ arguments: [String]) async throws -> CarebridgeProcess.Result {
            try await CarebridgeProcess.run(arguments + ["--store", storePath], environment: ["TZ": "Europe/Berlin"])
        }
        let plan = scratch.url.appendingPathComponent("plan.json")
        try Data(AssessmentCommandTests.plan.utf8).write(to: plan)
        #expect(try await run(["patients", "add", "anna", "--name", "Anna Weber", "--mrn", "0042-17"]).status == 0)
        #expect(try await run(["plan", "apply", plan.path]).status == 0)
        #expect(try await run(["complete", "medication", "--at", "2026-11-10T08:30"]).status == 0)
        #expect(try await run(["complete", "pain", "--at", "2026-11-10T09:00", "--value", "3"]).status == 0)
        #expect(try await run(["ingest", "bodyMass", "72.5", "kg", "--at", "2026-11-10T07:00", "--force"]).status == 0)
        let out = scratch.url.appendingPathComponent("bundle.json").path
        let result = try await run([
            "export", "--format", "fhir", "--from", "2026-11-10", "--to", "2026-11-10", "--out", out,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("no --subject"), "the store names its patient: \(result.stderr)")
        let bundle =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [String: Any]
        let entries = try #require(bundle?["entry"] as? [[String: Any]])
        let patients = entries.filter { ($0["resource"] as? [String: Any])?["resourceType"] as? String == "Patient" }
        #expect(patients.count == 1)
        let patient = try #require(patients.first?["fullUrl"] as? String)
        func reference(_ type: String, _ key: String, where match: ([String: Any]) -> Bool = { _ in true }) -> [String?]
        {
            entries.compactMap { $0["resource"] as? [String: Any] }
                .filter { $0["resourceType"] as? String == type && match($0) }
                .map { ($0[key] as? [String: Any])?["reference"] as? String }
        }
        func category(_ resource: [String: Any]) -> String? {
            (((resource["category"] as? [[String: Any]])?.first?["coding"] as? [[String: Any]])?.first)?["code"]
                as? String
        }
        #expect(reference("Task", "for") == [patient])
        #expect(reference("Observation", "subject") { category($0) == "survey" } == [patient])
        #expect(reference("Observation", "subject") { category($0) == "vital-signs" } == [patient])

        // A store without a patient, and no --subject: the warning says so, truthfully.
        let bare = scratch.url.appendingPathComponent("bare.sqlite").path
        _ = try await CarebridgeProcess.run(["ingest", "bodyMass", "72.5", "kg", "--store", bare])
        let warned = try await CarebridgeProcess.run(["export", "--format", "fhir", "--store", bare])
        #expect(warned.stderr.contains("no --subject and no patient in the store"), "\(warned.stderr)")
    }
}

/// Outcomes of a task deleted since are history: the FHIR export without --from starts at the earliest task of
/// the store, deleted ones included, so they are not dropped.
@Suite struct DeletedTaskOutcomeExportTests {
    @Test func theOutcomesOfADeletedTaskAreExportedWithoutFrom() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "carebridge-outcomes-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let storePath = directory.appendingPathComponent("store.sqlite").path
        func run(_ arguments: [String]) async throws -> CarebridgeProcess.Result {
            try await CarebridgeProcess.run(arguments + ["--store", storePath], environment: ["TZ": "Europe/Berlin"])
        }
        func plan(_ name: String, _ text: String) throws -> String {
            let url = directory.appendingPathComponent(name)
            try Data(text.utf8).write(to: url)
            return url.path
        }
        let medication = try plan(
            "medication.json",
            """
            {"tasks": [{"id": "medication", "title": "Take medication", "kind": "intervention",
               "schedule": {"timeZone": "Europe/Berlin",
                            "elements": [{"start": "2026-11-01T08:00:00", "interval": {"days": 1}, "duration": 3600}]}}]}
            """
        )
        #expect(try await run(["plan", "apply", medication]).status == 0)
        #expect(try await run(["complete", "medication", "--at", "2026-11-10T08:30"]).status == 0)
        // The task is deleted from 15 November (the store's API: a tombstone version; its past events stay), and
        // a later plan brings a task that starts after the outcome.
        let zone = TimeZone(identifier: "Europe/Berlin")!
        let store = try CareStore(
            path: storePath,
            bridgeZone: zone,
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        )
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let deletion = try #require(calendar.date(from: DateComponents(year: 2026, month: 11, day: 15)))
        try await store.deleteTask(id: "medication", effective: deletion)
        let walk = try plan(
            "walk.json",
            """
            {"tasks": [{"id": "walk", "title": "Walk", "kind": "intervention",
               "schedule": {"timeZone": "Europe/Berlin",
                            "elements": [{"start": "2026-11-20T16:00:00", "interval": {"days": 1}, "duration": 3600}]}}]}
            """
        )
        #expect(try await run(["plan", "apply", walk]).status == 0)

        let out = directory.appendingPathComponent("bundle.json").path
        let result = try await run(["export", "--format", "fhir", "--subject", "Patient/p1", "--out", out])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("with 1 care-plan outcome"), "\(result.stderr)")
        let bundle =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [String: Any]
        let tasks = try #require(bundle?["entry"] as? [[String: Any]]).compactMap {
            $0["resource"] as? [String: Any]
        }.filter { $0["resourceType"] as? String == "Task" }
        #expect(tasks.count == 1)
        #expect((tasks.first?["executionPeriod"] as? [String: Any])?["start"] as? String == "2026-11-10T08:30:00+01:00")
    }
}
