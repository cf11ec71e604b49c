import CareStore
import CareWeb
import Foundation
import Logging
import TestSupport
import Testing

/// What both lanes of the browser tests share: the store in a scratch directory, the plans, the users, the
/// recorded day, `carebridge serve` and a scenario of `Browser/care_app.py`.
protocol BrowserSuite {
    /// This test's directory (store, password files, server output), removed when the test ends.
    var scratch: ScratchDirectory { get }
    var store: String { get }
}

extension BrowserSuite {
    /// Every process runs in the plan's time zone, as a bridge in Berlin would.
    static var environment: [String: String] { ["TZ": "Europe/Berlin"] }

    /// Anna's plan (every kind of task, her scale linked) and Bob's, and three users: anna and bob (patients,
    /// each linked to themselves) and nurse (a clinician linked to both).
    func prepare() async throws {
        try await apply(BrowserPlans.annasPlan, named: "anna")
        try await apply(BrowserPlans.bobsPlan, named: "bob")
        try await addUser("anna", name: "Anna Weber", role: .patient, sees: ["anna"])
        try await addUser("bob", name: "Bob Brandt", role: .patient, sees: ["bob"])
        try await addUser("nurse", name: "Sam Ortiz", role: .clinician, sees: ["anna", "bob"])
    }

    /// 2026-11-19 for Anna: the medication done and the pain answered from the CLI, a weigh-in from the scale's
    /// stored burst, a LO glucose reading; Bob steps on the scale on 2026-11-20 and trips his weight alert.
    func recordADay() async throws {
        for arguments in [
            ["complete", "medication", "--patient", "anna", "--at", "2026-11-19T08:05"],
            ["complete", "pain", "--patient", "anna", "--at", "2026-11-19T09:00", "--value", "3"],
            [
                "replay", "--patient", "anna", PackageRoot.recording("weight-scale-stored-burst.jsonl"),
                PackageRoot.recording("glucose-meter-download-twice.jsonl"),
            ],
            ["replay", "--patient", "bob", PackageRoot.recording("weight-scale-morning-weigh-in.jsonl")],
        ] {
            let result = try await carebridge(arguments)
            #expect(result.status == 0, "\(arguments): \(result.standardError)")
        }
    }

    /// A weigh-in of 0.1 kg from Anna's scale on 2026-11-20 (the morning recording with its weight changed):
    /// quarantined as implausible.
    func recordAQuarantinedWeighIn() async throws {
        let text = try String(
            contentsOfFile: PackageRoot.recording("weight-scale-morning-weigh-in.jsonl"),
            encoding: .utf8
        )
        // Weight A438 (14500 × 0.005 kg) becomes 1400 (20 × 0.005 = 0.1 kg).
        let changed = text.replacingOccurrences(of: "\"0ea438ea07", with: "\"0e1400ea07")
        try #require(changed != text, "the recording's weight payload moved")
        let path = scratch.path("quarantined-weigh-in.jsonl")
        try Data(changed.utf8).write(to: URL(fileURLWithPath: path))
        let result = try await carebridge(["replay", "--patient", "anna", path])
        try #require(result.status == 0, "\(result.standardError)")
    }

    /// A blood pressure from a monitor nobody registered: with two patients it waits in the unassigned inbox.
    func recordAnUnassignedBloodPressure() async throws {
        let result = try await carebridge(["replay", PackageRoot.recording("blood-pressure-kpa.jsonl")])
        try #require(result.status == 0, "\(result.standardError)")
    }

    func apply(_ plan: String, named name: String) async throws {
        let path = scratch.path("\(name).json")
        try Data(plan.utf8).write(to: URL(fileURLWithPath: path))
        let applied = try await carebridge(["plan", "apply", path])
        try #require(applied.status == 0, "plan apply \(name): \(applied.standardError)")
    }

    /// Adds a user straight to the store, with a bcrypt hash of cost 4: `users add` (UsersCommandTests) hashes at
    /// cost 12, which takes seconds of CPU in a debug build, and every sign-in verifies at the hash's cost.
    func addUser(_ id: String, name: String, role: CareUser.Role, sees patients: [String]) async throws {
        let password = "\(id)-correct-horse-battery"
        try ScratchDirectory.writeSecret(password + "\n", to: passwordFile(id))
        let zone = TimeZone(identifier: "Europe/Berlin")!
        let opened = try CareStore(path: store, bridgeZone: zone, logger: Logger(label: "test"))
        try await opened.addUser(
            CareUser(id: id, displayName: name, role: role, patientIDs: patients),
            passwordHash: PasswordHasher(cost: 4).hash(password)
        )
    }

    func passwordFile(_ user: String) -> String { scratch.path("\(user).password") }

    /// Runs `carebridge ARGUMENTS --store STORE` to the end.
    func carebridge(_ arguments: [String]) async throws -> ChildProcess.Output {
        try await ChildProcess.run(
            PackageRoot.carebridgeExecutable,
            arguments + ["--store", store],
            environment: Self.environment
        )
    }

    func json(_ arguments: [String]) async throws -> [[String: Any]] {
        let result = try await carebridge(arguments + ["--json"])
        try #require(result.status == 0, "\(arguments): \(result.standardError)")
        return try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]])
    }

    /// Starts `carebridge serve`, runs `body` with it, then stops it with SIGTERM: it must exit 0.
    func withServer(_ body: (CareAppServer) async throws -> Void) async throws {
        let server = try await CareAppServer.start(store: store, directory: scratch.url, environment: Self.environment)
        do {
            try await body(server)
        } catch {
            _ = try? await server.stop()
            throw error
        }
        let stopped = try await server.stop()
        #expect(stopped.exited && stopped.status == 0, "serve after SIGTERM: \(stopped)\n\(server.stderr)")
    }

    /// Runs a scenario of `care_app.py` as `user` (whose patient is Anna unless it is bob).
    func scenario(
        _ name: String,
        on server: CareAppServer,
        as user: String = "anna",
        _ arguments: [String] = []
    ) async throws {
        let result = try await BrowserScenario.run(
            name,
            [
                "--url", server.url, "--user", user, "--password-file", passwordFile(user), "--patient", "anna",
                "--patient-name", "Anna Weber",
            ] + arguments,
            environment: Self.environment
        )
        #expect(result.status == 0, "\(result.output)\nserver:\n\(server.stderr)")
    }

    /// Where the screenshots go: docs/screenshots/ (committed, shown in the README) when RECORD_SCREENSHOTS is
    /// set, else this test's scratch directory (taken all the same, so recording them cannot be what breaks).
    func screenshots(named name: String) -> [String] {
        let directory =
            ProcessInfo.processInfo.environment["RECORD_SCREENSHOTS"] != nil
            ? PackageRoot.url.appendingPathComponent("docs/screenshots").path : scratch.path
        return ["--screenshot-dir", directory, "--screenshot-name", name]
    }
}

/// The plans of the browser tests.
enum BrowserPlans {
    static let daily = """
        {"timeZone": "Europe/Berlin",
         "elements": [{"start": "2026-11-01T00:00:00", "interval": {"days": 1}, "duration": "allDay"}]}
        """

    static let annasPlan = """
        {"patient": {"id": "anna", "name": "Anna Weber"},
         "tasks": [
          {"id": "medication", "title": "Ramipril 5 mg", "kind": "intervention",
           "schedule": {"timeZone": "Europe/Berlin",
                        "elements": [{"start": "2026-11-01T00:00:00", "interval": {"days": 1}, "duration": "allDay",
                                      "text": "One tablet with water after breakfast"}]}},
          {"id": "walk", "title": "Walk for 20 minutes", "kind": "intervention",
           "schedule": {"timeZone": "Europe/Berlin",
                        "elements": [{"start": "2026-11-01T17:00:00", "interval": {"days": 1}, "duration": 3600}]}},
          {"id": "pain", "title": "Back pain", "kind": "assessment", "schedule": \(daily),
           "answer": {"type": "scale", "min": 0, "max": 10, "labels": {"0": "none", "10": "worst"}}},
          {"id": "nausea", "title": "Nausea", "kind": "assessment", "schedule": \(daily), "answer": {"type": "yesNo"}},
          {"id": "mood", "title": "Mood", "kind": "assessment", "schedule": \(daily),
           "answer": {"type": "choice", "options": ["good", "okay", "low"]}},
          {"id": "sleep", "title": "Sleep last night", "kind": "assessment", "schedule": \(daily),
           "answer": {"type": "duration"}},
          {"id": "water", "title": "Glasses of water", "kind": "assessment", "schedule": \(daily),
           "answer": {"type": "count"}},
          {"id": "diary", "title": "Anything else?", "kind": "assessment", "schedule": \(daily),
           "answer": {"type": "text"}},
          {"id": "weigh-in", "title": "Weigh yourself", "kind": "assessment", "schedule": \(daily),
           "linkage": {"type": "bodyMass", "unit": "kg", "aggregation": "first"}},
          {"id": "glucose", "title": "Blood glucose before breakfast", "kind": "assessment", "schedule": \(daily),
           "linkage": {"type": "bloodGlucose", "unit": "mg/dL", "aggregation": "first"}}
         ]}
        """

    static let bobsPlan = """
        {"patient": {"id": "bob", "name": "Bob Brandt"},
         "tasks": [
          {"id": "bob-medication", "title": "Metformin 500 mg", "kind": "intervention", "schedule": \(daily)},
          {"id": "bob-weigh-in", "title": "Weigh yourself", "kind": "assessment", "schedule": \(daily),
           "linkage": {"type": "bodyMass", "unit": "kg", "aggregation": "first"},
           "alerts": [{"id": "heavy", "when": {">": 70, "unit": "kg"}}]}
         ]}
        """
}
