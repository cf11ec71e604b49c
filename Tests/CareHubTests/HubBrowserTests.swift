import CareHub
import Foundation
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

/// The hub's dashboard in a real browser: the hub's server (in process, its clock fixed at ``CareTeamWard/now``)
/// listening on a free port over a real PostgreSQL with three bridges' patients, and Debian's chromium driven by
/// Selenium through the care app's own scenarios (`Tests/CareWebTests/Browser/care_app.py`, run by
/// ``BrowserScenario``). Under CI=true a missing browser or PostgreSQL fails the tests instead of skipping them.
@Suite(
    .serialized,
    .enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"),
    .enabled(
        if: BrowserScenario.required,
        "needs chromium, chromium-driver and python3 with selenium and axe-selenium-python (.ci/run installs them)"
    )
)
struct HubBrowserTests {
    let scratch: ScratchDirectory
    static let environment = ["TZ": "Europe/Berlin"]

    init() throws {
        scratch = try ScratchDirectory("carebridge-hubbrowser-")
    }

    @Test func aNurseSignsInSeesEveryBridgesPatientsUrgentFirstAndOpensOne() async throws {
        try await withDashboard { url in
            try await scenario(
                "overview",
                url,
                as: "nurse",
                [
                    "--order", "ann,ben,cleo", "--patient", "ann", "--patient-name", "Ann Weber",
                    "--present", "Ben Weber", "--present", "home-1", "--present", "home-2", "--present", "home-3",
                    "--present", "heartRate 250 /min (out of range)",
                ]
            )
        }
    }

    /// The overview, a patient, their record and the day before, and an alert acknowledged: Tab and Enter alone.
    @Test func theOverviewAPatientsRecordAndAcknowledgingAreReachedWithTheKeyboardAlone() async throws {
        try await withDashboard { url in
            try await scenario(
                "overview-keyboard",
                url,
                as: "nurse",
                ["--patient", "ann", "--patient-name", "Ann Weber", "--record-day", "2026-11-26"]
            )
        }
    }

    @Test func theOverviewAPatientAndTheirRecordHaveNoSeriousAccessibilityViolationsAtEverySize() async throws {
        try await withDashboard { url in
            for (path, present) in [
                ("/overview", "tr.urgent[data-patient=ann]"), ("/overview/ann", "li[data-alert]"),
                ("/overview/ann/record", "table.readings"),
            ] {
                try await scenario(
                    "axe",
                    url,
                    as: "nurse",
                    ["--path", path, "--sizes", "narrow,phone,desktop", "--present", present]
                )
            }
        }
    }

    /// At a phone's width and at 200 % and 400 % zoom nothing scrolls sideways and every target is 44 px.
    @Test func theOverviewAPatientAndTheirRecordReflowAtAPhonesWidth() async throws {
        try await withDashboard { url in
            for path in ["/overview", "/overview/ann", "/overview/ann/record"] {
                try await scenario("reflow", url, as: "nurse", ["--path", path])
            }
        }
    }

    @Test func aCarerLinkedToOnePatientGets403AndNoneOfTheOthersData() async throws {
        try await withDashboard { url in
            try await scenario(
                "overview-forbidden",
                url,
                as: "carer",
                [
                    "--patient", "ann", "--refused", "ben", "--refused", "cleo", "--refused", "nobody",
                    "--secret", "80.5", "--secret", "64.2", "--secret", "Ben Weber", "--secret", "home-2", "--secret",
                    "home-3",
                ]
            )
        }
    }

    // MARK: - Set-up

    /// Runs `body` with the dashboard's address, served live on a free port of localhost.
    func withDashboard(_ body: @escaping @Sendable (String) async throws -> Void) async throws {
        let password = scratch.path("dashboard.password")
        try ScratchDirectory.writeSecret("\(HubFixture.dashboardPassword)\n", to: password)
        try await HubFixture.withDashboard(scratch: scratch) { server in
            try await Application(router: server.router()).test(.live) { client in
                let port = try #require(client.port)
                try await body("http://localhost:\(port)")
            }
        }
    }

    /// Runs a scenario of `care_app.py` as `user` against the dashboard at `url`.
    func scenario(_ name: String, _ url: String, as user: String, _ arguments: [String]) async throws {
        let result = try await BrowserScenario.run(
            name,
            ["--url", url, "--user", user, "--password-file", scratch.path("dashboard.password")] + arguments,
            environment: Self.environment
        )
        #expect(result.status == 0, "\(result.output)")
    }
}
