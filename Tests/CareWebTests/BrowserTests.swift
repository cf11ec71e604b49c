import Foundation
import TestSupport
import Testing

/// The care app in a real browser: `carebridge serve` on a fresh store, Debian's chromium driven by Selenium
/// (`Browser/care_app.py`), one scenario per test. Needs chromium, chromium-driver, selenium and
/// axe-selenium-python (`.ci/run` installs them); under CI=true a missing one fails the tests instead of skipping
/// them. Every wait in the browser is for a condition, with a minute's timeout. The accessibility scenarios are
/// ``BrowserAccessibilityTests``: each suite runs one browser at a time, and the two run beside each other.
@Suite(
    .serialized,
    .enabled(
        if: BrowserScenario.required,
        "needs chromium, chromium-driver and python3 with selenium and axe-selenium-python (.ci/run installs them)"
    )
)
struct BrowserTests: BrowserSuite {
    /// This test's directory (store, password files, server output), removed when the test ends.
    let scratch: ScratchDirectory
    let store: String

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
}
