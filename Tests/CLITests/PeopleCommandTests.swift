import Foundation
import TestSupport
import Testing

/// Patients, the device registry and the unassigned inbox from the command line, with recorded sessions replayed
/// into a real store: a multi-user scale whose slot is assigned, another scale whose user slot is not.
@Suite struct PeopleCommandTests {
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

    func json(_ arguments: [String]) async throws -> Any {
        let result = try await run(arguments + ["--json"])
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    /// A plan file for one patient with a daily weigh-in keeping every value.
    func planFile(patient: String, name: String, mrn: String) throws -> String {
        let text = """
            {"patient": {"id": "\(patient)", "name": "\(name)", "identifiers": [{"value": "\(mrn)", "type": "MR"}]},
             "contacts": [{"id": "\(patient)-gp", "name": "Dr. Gray", "category": "careTeam", "role": "physician",
                           "receives": ["reports"]},
                          {"id": "\(patient)-family", "name": "Sam", "category": "personal", "role": "partner"}],
             "tasks": [{"id": "weigh-\(patient)", "title": "Weigh yourself", "kind": "assessment",
               "schedule": {"timeZone": "Europe/Berlin",
                            "elements": [{"start": "2026-11-01T00:00:00", "interval": {"days": 1}, "duration": "allDay"}]},
               "linkage": {"type": "bodyMass", "unit": "kg", "aggregation": "each"}}]}
            """
        let path = directory.appendingPathComponent("\(patient).json").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func weights(_ patient: String) async throws -> [Double] {
        let events = try #require(
            try await json(["events", "--patient", patient, "--from", "2026-11-20", "--to", "2026-11-21"])
                as? [[String: Any]]
        )
        return events.flatMap { ($0["values"] as? [[String: Any]] ?? []).compactMap { $0["value"] as? Double } }
    }

    @Test func aTwoUserScaleReplayFilesTheAssignedSlotAndKeepsTheOtherInTheInbox() async throws {
        #expect(
            try await run(["plan", "apply", try planFile(patient: "alice", name: "Alice", mrn: "A-1")]).status == 0
        )
        #expect(try await run(["plan", "apply", try planFile(patient: "bob", name: "Bob", mrn: "B-2")]).status == 0)
        let patients = try #require(try await json(["patients"]) as? [[String: Any]])
        #expect(patients.compactMap { $0["id"] as? String } == ["alice", "bob"])

        // Two patients: a command about one patient's data needs --patient, and says which there are.
        let ambiguous = try await run(["events", "--from", "2026-11-20"])
        #expect(ambiguous.status == 64 && ambiguous.stderr.contains("alice, bob"))
        let unknown = try await run(["events", "--patient", "zoe"])
        #expect(unknown.status == 1 && unknown.stderr.contains("alice, bob"))

        // The UDS scale gives its user slot 3: bob's. The body-composition scale's slot 1 has no owner.
        let assigned = try await run(["devices", "assign", "02:00:00:00:00:29", "--slot", "3", "bob"])
        #expect(assigned.status == 0 && assigned.stdout.contains("user slot 3 of 02:00:00:00:00:29 belongs to bob"))
        let replay = try await run([
            "replay", ReplayCommandTests.recording("uds-scale-registration-and-consent.jsonl"),
            ReplayCommandTests.recording("body-composition-scale.jsonl"),
        ])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stderr.contains("unassigned inbox"))
        #expect(try await weights("bob") == [72.5, 72.3])  // slot 3 on both days
        #expect(try await weights("alice").isEmpty)

        let inbox = try #require(try await json(["samples", "--unassigned"]) as? [[String: Any]])
        #expect(!inbox.isEmpty)
        #expect(inbox.allSatisfy { ($0["unassigned"] as? String)?.contains("02:00:00:00:00:03") == true })
        #expect(inbox.allSatisfy { $0["patient"] is NSNull })
        let weight = try #require(inbox.first { $0["type"] as? String == "bodyMass" })
        #expect(weight["payload"] != nil && weight["receivedAt"] != nil)
        let id = try #require(weight["id"] as? String)

        let filed = try #require(try await json(["samples", "assign", id, "alice"]) as? [String: Any])
        #expect((filed["samples"] as? [String])?.count == inbox.count)  // the whole measurement
        #expect(filed["eventsUpdated"] as? Int == 1)
        #expect(try await weights("alice") == [72.5])
        #expect(try #require(try await json(["samples", "--unassigned"]) as? [Any]).isEmpty)
        let again = try await run(["samples", "assign", id, "bob"])
        #expect(again.status == 1 && again.stderr.contains("belongs to patient 'alice'"))

        // Replaying the same sessions again changes nothing: the filed readings stay filed.
        #expect(try await run(["replay", ReplayCommandTests.recording("body-composition-scale.jsonl")]).status == 0)
        #expect(try await weights("alice") == [72.5])
        #expect(try #require(try await json(["samples", "--unassigned"]) as? [Any]).isEmpty)

        // Connect: the care team and personal contacts, and the sharing audit list.
        let contacts = try await run(["contacts", "--patient", "alice"])
        #expect(contacts.stdout.contains("Care team") && contacts.stdout.contains("Personal"))
        #expect(contacts.stdout.contains("Dr. Gray") && !contacts.stdout.contains("bob-gp"))
        #expect(
            try await run(["shared", "--record", "alice-gp", "--what", "report", "--channel", "email"]).status == 0
        )
        let shared = try #require(try await json(["shared", "--patient", "alice"]) as? [[String: Any]])
        #expect(shared.count == 1 && shared.first?["contact"] as? String == "alice-gp")
        #expect(try #require(try await json(["shared", "--patient", "bob"]) as? [Any]).isEmpty)
    }

    @Test func aFHIRExportPerPatientNamesThePatient() async throws {
        #expect(
            try await run(["plan", "apply", try planFile(patient: "alice", name: "Alice", mrn: "A-1")]).status == 0
        )
        #expect(try await run(["plan", "apply", try planFile(patient: "bob", name: "Bob", mrn: "B-2")]).status == 0)
        #expect(try await run(["devices", "assign", "02:00:00:00:00:29", "bob"]).status == 0)
        #expect(
            try await run(["replay", ReplayCommandTests.recording("uds-scale-registration-and-consent.jsonl")]).status
                == 0
        )
        let export = try await run(["export", "--format", "fhir", "--patient", "bob"])
        #expect(export.status == 0, "\(export.stderr)")
        let bundle = try #require(try JSONSerialization.jsonObject(with: Data(export.stdout.utf8)) as? [String: Any])
        let entries = try #require(bundle["entry"] as? [[String: Any]])
        let patient = try #require(entries.first?["resource"] as? [String: Any])
        #expect(patient["resourceType"] as? String == "Patient")
        #expect((patient["identifier"] as? [[String: Any]])?.contains { $0["value"] as? String == "B-2" } == true)
        let reference = entries.first?["fullUrl"] as? String
        // The readings, not the coincident time stamps (their subject is the device, as the PHD IG wants).
        let observations = entries.compactMap { $0["resource"] as? [String: Any] }
            .filter { $0["resourceType"] as? String == "Observation" && $0["valueDateTime"] == nil }
        #expect(observations.count == 2)
        #expect(observations.allSatisfy { ($0["subject"] as? [String: Any])?["reference"] as? String == reference })
        let empty = try await run(["export", "--format", "fhir", "--patient", "alice"])
        #expect(empty.stderr.contains("exported 0 samples"))
        // CSV and JSON Lines name the patient.
        let csv = try await run(["export", "--format", "csv", "--patient", "bob"])
        let lines = csv.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(lines.first?.hasSuffix(",status,patient,aggregate_count,aggregate_min,aggregate_max") == true)
        #expect(lines.count == 3 && lines.dropFirst().allSatisfy { $0.hasSuffix(",bob,,,") })
        let jsonl = try await run(["export", "--format", "jsonl", "--patient", "bob"])
        let objects = try jsonl.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(objects.count == 2 && objects.allSatisfy { $0["patient"] as? String == "bob" })
    }
}
