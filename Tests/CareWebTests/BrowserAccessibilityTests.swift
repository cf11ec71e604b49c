import Foundation
import TestSupport
import Testing

/// The care app's screens checked with axe-core in a real browser (`Browser/care_app.py axe`, `reflow`,
/// `keyboard`), and the README's screenshots: the second lane of the browser tests, beside ``BrowserTests``.
@Suite(
    .serialized,
    .enabled(
        if: BrowserScenario.required,
        "needs chromium, chromium-driver and python3 with selenium and axe-selenium-python (.ci/run installs them)"
    )
)
struct BrowserAccessibilityTests: BrowserSuite {
    /// This test's directory (store, password files, server output), removed when the test ends.
    let scratch: ScratchDirectory
    let store: String

    init() throws {
        scratch = try ScratchDirectory("carebridge-browser-")
        store = scratch.path("store.sqlite")
    }

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
        try await apply(BrowserPlans.annasPlan, named: "anna")
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
}
