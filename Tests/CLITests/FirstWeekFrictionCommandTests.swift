import Foundation
import TestSupport
import Testing

/// What people tripped on in their first week (#30 item 16): file errors that show a line 0, a correction of another
/// type taken silently, a mistyped task or patient without a suggestion, a failed `run` that leaves an empty store.
@Suite struct FirstWeekFrictionCommandTests {
    let scratch: ScratchDirectory
    let storePath: String

    init() throws {
        scratch = try ScratchDirectory("carebridge-friction-")
        storePath = scratch.path("store.sqlite")
    }

    func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> CarebridgeProcess.Result {
        try await CarebridgeProcess.run(
            arguments + ["--store", storePath],
            environment: ["TZ": "Europe/Berlin"].merging(environment) { $1 }
        )
    }

    @Test func aRecordingThatCannotBeOpenedIsNamedWithoutALineZero() async throws {
        let missing = scratch.path("no-such-recording.jsonl")
        let result = try await run(["replay", missing])
        #expect(result.status != 0)
        #expect(result.stderr.contains("\(missing): cannot open"), "\(result.stderr)")
        #expect(!result.stderr.contains(":0"), "\(result.stderr)")
    }

    @Test func aCorrectionOfAnotherTypeIsRefusedNamingBothTypes() async throws {
        let first = try await run(["ingest", "bodyMass", "72.4", "kg", "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        let samples = try await run(["samples", "--json"])
        let list = try #require(JSONSerialization.jsonObject(with: Data(samples.stdout.utf8)) as? [[String: Any]])
        let id = try #require(list.first?["id"] as? String)

        let result = try await run(["ingest", "bodyTemperature", "37.2", "°C", "--replace", id])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("bodyMass") && result.stderr.contains("bodyTemperature"), "\(result.stderr)")
        let after = try await run(["samples", "--json"])
        let kept = try #require(JSONSerialization.jsonObject(with: Data(after.stdout.utf8)) as? [[String: Any]])
        #expect(kept.map { $0["id"] as? String } == [id], "the body mass reading stays: \(after.stdout)")
    }

    @Test func aMistypedTaskOrPatientIsAnsweredWithTheClosestName() async throws {
        let plan = try await run(["plan", "apply", PackageRoot.recording("care-plan.json")])
        #expect(plan.status == 0, "\(plan.stderr)")
        let complete = try await run(["complete", "weigh_in"])
        #expect(complete.status == 1, "\(complete.stderr)")
        #expect(complete.stderr.contains("did you mean 'weigh-in'?"), "\(complete.stderr)")
        let events = try await run(["events", "--task", "blood-presure"])
        #expect(events.status == 1)
        #expect(events.stderr.contains("did you mean 'blood-pressure'?"), "\(events.stderr)")

        for (id, name) in [("bed-2", "Ada"), ("bed-10", "Grace")] {
            let added = try await run(["patients", "add", id, "--name", name])
            #expect(added.status == 0, "\(added.stderr)")
        }
        let patient = try await run(["events", "--patient", "bed-1O"])
        #expect(patient.status == 1, "\(patient.stderr)")
        #expect(patient.stderr.contains("did you mean 'bed-10'?"), "\(patient.stderr)")
    }

    @Test func anUnreachableBrokerIsDescribedInWordsWithoutNIOInternals() async throws {
        let port = try MosquittoBroker.freeLoopbackPort()
        let result = try await run(
            ["ingest", "bodyMass", "72.4", "kg", "--mqtt", "mqtt://127.0.0.1:\(port)", "--mqtt-wait", "1"]
        )
        #expect(result.status == 75, "\(result.stderr)")
        #expect(
            result.stderr.contains("cannot connect to 127.0.0.1 port \(port): connection refused"),
            "\(result.stderr)"
        )
        for detail in ["SingleConnectionFailure", "NIO", "errno", ".swift:", "connectionFailed"] {
            #expect(!result.stderr.contains(detail), "\(detail) in \(result.stderr)")
        }
    }

    @Test func severitiesAndStatesAreColouredOnlyWhenAsked() async throws {
        let plan = scratch.path("plan.json")
        let text = """
            {"tasks": [{"id": "weigh", "title": "Weigh yourself", "kind": "assessment",
               "schedule": {"timeZone": "Europe/Berlin",
                            "elements": [{"start": "2026-11-01T00:00:00", "interval": {"days": 1}, "duration": "allDay"}]},
               "linkage": {"type": "bodyMass", "unit": "kg", "aggregation": "first"},
               "alerts": [{"id": "over-80", "severity": "critical", "when": {">": 80}}]}]}
            """
        try Data(text.utf8).write(to: URL(fileURLWithPath: plan))
        #expect(try await run(["plan", "apply", plan]).status == 0)
        #expect(try await run(["ingest", "bodyMass", "85", "kg"]).status == 0)

        let coloured = try await run(["alerts", "--color", "always"])
        #expect(coloured.stdout.contains("\u{1B}[1;31mcritical\u{1B}[0m"), "\(coloured.stdout)")
        let day = ["today", "--day", "2026-11-20", "--at", "2026-11-22T12:00"]
        let today = try await run(day + ["--color", "always"])
        #expect(today.stdout.contains("\u{1B}[31mmissed\u{1B}[0m"), "\(today.stdout)")
        // Piped (as here) `auto` is plain, and so is `never`; NO_COLOR turns `auto` off on a terminal too.
        for arguments in [["alerts"], ["alerts", "--color", "never"], day] {
            let plain = try await run(arguments, environment: ["NO_COLOR": "1"])
            #expect(plain.status == 0 && !plain.stdout.contains("\u{1B}["), "\(arguments): \(plain.stdout)")
        }
    }
}
