import Foundation
import TestSupport
import Testing

/// The care app in a real browser: `carebridge serve` on a fresh store, Debian's chromium driven by Selenium
/// (`Browser/care_app.py`), one scenario per test. Needs chromium, chromium-driver, selenium and
/// axe-selenium-python (`.ci/run` installs them); under CI=true a missing one fails the tests instead of skipping
/// them. Every wait in the browser is for a condition, with a minute's timeout.
@Suite(
    .serialized,
    .enabled(
        if: BrowserScenario.required,
        "needs chromium, chromium-driver and python3 with selenium and axe-selenium-python (.ci/run installs them)"
    )
)
struct BrowserTests {
    /// This test's directory (store, password files, server output), removed when the test ends.
    let scratch: ScratchDirectory
    let store: String
    /// Every process runs in the plan's time zone, as a bridge in Berlin would.
    static let environment = ["TZ": "Europe/Berlin"]

    init() throws {
        scratch = try ScratchDirectory("carebridge-browser-")
        store = scratch.path("store.sqlite")
    }

    // MARK: - Scenarios

    @Test func aWrongPasswordShowsTheErrorAndTheRightOneLandsOnToday() async throws {
        try await prepare()
        try await withServer { server in
            try await scenario("login", on: server, ["--user-name", "Anna Weber"])
        }
    }

    @Test func doneTurnsTheMedicationDoneAndUndoTurnsItBack() async throws {
        try await prepare()
        try await withServer { server in
            try await scenario("done-undo", on: server, ["--task", "medication"])
        }
        // The browser's Undo reached the store: today's medication has no outcome.
        let events = try await json(["events", "--patient", "anna"])
        let medication = events.first { $0["task"] as? String == "medication" }
        #expect(medication?["completed"] as? Bool == false, "\(medication ?? [:])")
    }

    @Test func answeringPainSevenShowsTheAnswerAndStoresItWithItsAuthor() async throws {
        try await prepare()
        try await withServer { server in
            try await scenario("answer", on: server, ["--task", "pain", "--value", "7", "--expect", "Answered 7/10"])
        }
        let events = try await json(["events", "--patient", "anna"])
        let pain = try #require(events.first { $0["task"] as? String == "pain" })
        #expect((pain["values"] as? [[String: Any]])?.first?["value"] as? Double == 7, "\(pain)")
    }

    @Test func aReplayedWeighInCompletesTheOpenTodayPageWithoutAReload() async throws {
        try await prepare()
        try await withServer { server in
            try await scenario(
                "live",
                on: server,
                [
                    "--task", "weigh-in", "--day", "2026-11-20", "--expect", "72.5 kg", "--",
                    PackageRoot.carebridgeExecutable.path, "replay", "--store", store, "--patient", "anna",
                    PackageRoot.recording("weight-scale-morning-weigh-in.jsonl"),
                ]
            )
        }
    }

    @Test func aPatientGets403OnAnotherPatientsPagesAPIAndLiveStream() async throws {
        try await prepare()
        try await withServer { server in
            try await scenario(
                "forbidden",
                on: server,
                ["--other", "bob", "--other-name", "Bob Brandt", "--task", "bob-medication"]
            )
        }
    }

    @Test func anEndedSessionGoesBackToSignIn() async throws {
        try await prepare()
        try await withServer { server in
            try await scenario(
                "revoked",
                on: server,
                ["--", PackageRoot.carebridgeExecutable.path, "users", "revoke", "anna", "--store", store]
            )
        }
    }

    @Test func aFormWithoutItsCSRFTokenIsRefusedAndRecordsNothing() async throws {
        try await prepare()
        try await withServer { server in
            try await scenario("csrf", on: server, ["--task", "medication"])
        }
        let events = try await json(["events", "--patient", "anna"])
        #expect(events.first { $0["task"] as? String == "medication" }?["completed"] as? Bool == false)
    }

    @Test func fiveWrongPasswordsThrottleEvenTheRightOne() async throws {
        try await prepare()
        try await withServer { server in
            try await scenario("throttle", on: server)
        }
    }

    @Test func aReadingTypedInWithTheKeyboardIsListedAsTypedInByTheUser() async throws {
        try await prepare()
        try await withServer { server in
            try await scenario("reading-entry", on: server, ["--value", "72.4 kg", "--expect", "72.4 kg"])
        }
        let samples = try await json(["samples", "--patient", "anna"])
        #expect(samples.contains { $0["value"] as? Double == 72.4 }, "\(samples)")
    }

    @Test func theCareTeamReleasesAQuarantinedReadingWithAReason() async throws {
        try await prepare()
        try await recordAQuarantinedWeighIn()
        try await withServer { server in
            try await scenario(
                "release",
                on: server,
                as: "nurse",
                ["--day", "2026-11-16", "--reason", "checked on the scale's display"]
            )
        }
        #expect(try await json(["samples", "--patient", "anna", "--quarantined"]).isEmpty)
    }

    @Test func anInboxReadingFiledWithThisWasLeavesTheInbox() async throws {
        try await prepare()
        try await recordAnUnassignedBloodPressure()
        try await withServer { server in
            try await scenario("inbox", on: server, as: "nurse")
        }
        let unassigned = try await carebridge(["samples", "--unassigned"])
        #expect(unassigned.standardOutput.contains("no unassigned readings"), "\(unassigned.standardOutput)")
    }

    // MARK: - Accessibility (axe-core) and screenshots

    /// Readings of Anna's recorded week: a LO glucose flagged and a quarantined weigh-in, with the entry form; and
    /// for the nurse the quarantined reading's release and delete page.
    @Test func readingsAndTheReviewPageHaveNoSeriousAccessibilityViolations() async throws {
        try await prepare()
        try await recordADay()
        try await recordAQuarantinedWeighIn()
        try await withServer { server in
            try await scenario(
                "axe",
                on: server,
                [
                    "--path", "/patients/anna/readings?from=2026-11-16", "--sizes", "narrow,phone,desktop",
                    "--present", "tr.quarantined",
                    "--present", "tr.flagged", "--present", "form.entry",
                ]
            )
            let quarantined = try await json(["samples", "--patient", "anna", "--quarantined"])
            let id = try #require(quarantined.first?["id"] as? String)
            try await scenario(
                "axe",
                on: server,
                as: "nurse",
                ["--path", "/patients/anna/readings/\(id)", "--sizes", "narrow,desktop", "--present", "button.danger"]
            )
        }
    }

    @Test func devicesWithTheInboxHaveNoSeriousAccessibilityViolations() async throws {
        try await prepare()
        try await recordADay()
        try await recordAnUnassignedBloodPressure()
        try await withServer { server in
            try await scenario(
                "axe",
                on: server,
                as: "nurse",
                [
                    "--path", "/patients/anna/devices", "--sizes", "narrow,phone,desktop", "--present", ".device",
                    "--present", ".inbox-reading button",
                ]
            )
        }
    }

    @Test func theSignInPageHasNoSeriousAccessibilityViolations() async throws {
        try await prepare()
        try await withServer { server in
            let result = try await BrowserScenario.run(
                "axe",
                ["--url", server.url, "--path", "/login"],
                environment: Self.environment
            )
            #expect(result.status == 0, "\(result.output)")
        }
    }

    /// A store without users: the setup link `serve` printed opens the admin account's form.
    @Test func theSetupPageHasNoSeriousAccessibilityViolations() async throws {
        try await apply(Self.annasPlan, named: "anna")
        try await withServer { server in
            let prefix = "no users yet: open \(server.url)"
            let line = try #require(server.stdout.split(separator: "\n").first { $0.hasPrefix(prefix) })
            let path = String(line.dropFirst(prefix.count).prefix { $0 != " " })
            #expect(path.hasPrefix("/setup?token="), "\(line)")
            let result = try await BrowserScenario.run(
                "axe",
                ["--url", server.url, "--path", path, "--sizes", "narrow,desktop", "--present", "#again"],
                environment: Self.environment
            )
            #expect(result.status == 0, "\(result.output)")
        }
    }

    /// A day with every kind of event: done, answered, open answer forms of each format, a device's reading, a
    /// LO reading flagged, an intervention not done.
    @Test func todayWithEveryKindOfEventHasNoSeriousAccessibilityViolations() async throws {
        try await prepare()
        try await recordADay()
        try await withServer { server in
            try await scenario(
                "axe",
                on: server,
                [
                    "--path", "/patients/anna/today?day=2026-11-19", "--state", "glucose=LO (limit unknown) mg/dL",
                    "--state", "weigh-in=72.6 kg measured at 07:35", "--state", "medication=Done at 08:05",
                    "--state", "pain=Answered 3/10 at 09:00", "--state", "walk=Not done",
                ] + screenshots(named: "today")
            )
        }
    }

    /// The settings page (axe at each size): the browser's zone offered but not saved, then New York chosen and
    /// saved; Today's 08:05 Berlin dose reads 02:05 New York time on the same plan day.
    @Test func choosingNewYorkOnTheSettingsPageMovesTodaysTimesButNotTheDay() async throws {
        try await prepare()
        try await recordADay()
        try await withServer { server in
            try await scenario(
                "zone",
                on: server,
                [
                    "--day", "2026-11-19", "--task", "medication", "--before", "Done at 08:05", "--zone",
                    "America/New_York", "--expect", "Done at 02:05 New York time", "--sizes", "narrow,desktop",
                ]
            )
        }
        let users = try await json(["users", "list"])
        #expect(users.first { $0["id"] as? String == "anna" }?["timeZone"] as? String == "America/New_York")
    }

    @Test func thePatientListOfAClinicianHasNoSeriousAccessibilityViolations() async throws {
        try await prepare()
        try await recordADay()
        try await withServer { server in
            try await scenario(
                "axe",
                on: server,
                as: "nurse",
                ["--path", "/patients"] + screenshots(named: "patients")
            )
        }
    }

    /// The week of Anna's recorded day: the chart of her medication beside her pain, and Bob's open weight alert
    /// with its Acknowledge button for the nurse.
    @Test func insightsShowTheWeeksChartAndOpenAlertsWithoutSeriousAccessibilityViolations() async throws {
        try await prepare()
        try await recordADay()
        try await withServer { server in
            try await scenario(
                "axe",
                on: server,
                ["--path", "/patients/anna/insights?from=2026-11-16", "--present", "figure.chart svg[role=img]"]
                    + screenshots(named: "insights")
            )
            try await scenario(
                "axe",
                on: server,
                as: "nurse",
                ["--path", "/patients/bob/insights?from=2026-11-16", "--present", ".alert form button"]
            )
        }
    }

    @Test func theCareTeamPageHasNoSeriousAccessibilityViolations() async throws {
        try await prepare()
        try await withServer { server in
            try await scenario("axe", on: server, ["--path", "/patients/anna/connect", "--present", "nav.tabs"])
        }
    }

    @Test func theSignInAndADoseAreDoneWithTheKeyboardAlone() async throws {
        try await prepare()
        try await withServer { server in
            try await scenario("keyboard", on: server, ["--task", "medication"])
        }
        let events = try await json(["events", "--patient", "anna"])
        let medication = events.first { $0["task"] as? String == "medication" }
        #expect(medication?["completed"] as? Bool == true, "\(medication ?? [:])")
    }

    /// Every screen at a phone's width and at 200 % and 400 % zoom: no sideways scrolling, touch targets of 44 px.
    @Test func everyScreenReflowsAtZoomAndAPhonesWidthWithLargeTargets() async throws {
        try await prepare()
        try await recordADay()
        try await withServer { server in
            for (path, user) in [
                ("/patients/anna/today?day=2026-11-19", "anna"), ("/patients", "nurse"),
                ("/patients/anna/insights?from=2026-11-16", "anna"), ("/patients/anna/connect", "anna"),
                ("/patients/anna/readings?from=2026-11-19&to=2026-11-19", "nurse"), ("/patients/anna/devices", "nurse"),
            ] {
                try await scenario("reflow", on: server, as: user, ["--path", path])
            }
        }
    }

    // MARK: - Set-up

    /// Anna's plan (every kind of task, her scale linked) and Bob's, and three users: anna and bob (patients,
    /// each linked to themselves) and nurse (a clinician linked to both).
    func prepare() async throws {
        try await apply(Self.annasPlan, named: "anna")
        try await apply(Self.bobsPlan, named: "bob")
        try await addUser("anna", name: "Anna Weber", role: "patient", sees: ["anna"])
        try await addUser("bob", name: "Bob Brandt", role: "patient", sees: ["bob"])
        try await addUser("nurse", name: "Sam Ortiz", role: "clinician", sees: ["anna", "bob"])
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

    func addUser(_ id: String, name: String, role: String, sees patients: [String]) async throws {
        let file = passwordFile(id)
        try ScratchDirectory.writeSecret("\(id)-correct-horse-battery\n", to: file)
        let added = try await carebridge(
            ["users", "add", id, "--name", name, "--role", role, "--password-file", file]
                + patients.flatMap { ["--sees", $0] }
        )
        try #require(added.status == 0, "users add \(id): \(added.standardError)")
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

    // MARK: - Plans

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
