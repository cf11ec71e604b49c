import CareHub
import CareStore
import CareWeb
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import TestSupport
import Testing

/// The care team's dashboard on the hub, in process over a real PostgreSQL: the care app's sign-in and sessions
/// on the hub's users, the overview across three bridges' patients, and a user refused a patient they are not
/// linked to.
@Suite(.serialized) struct HubDashboardTests {
    let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory("carebridge-hubweb-")
    }

    /// Runs `body` with a browser on the hub's router (``HubFixture/withDashboard(scratch:_:)``).
    func withDashboard(_ body: @escaping @Sendable (Browser) async throws -> Void) async throws {
        try await HubFixture.withDashboard(scratch: scratch) { server in
            try await Application(router: server.router()).test(.router) { client in
                try await body(Browser(client: client))
            }
        }
    }

    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func aNurseSignsInAndSeesEveryBridgesPatientsUrgentFirst() async throws {
        try await withDashboard { browser in
            let signedOut = try await browser.get("/overview")
            #expect(signedOut.status == .seeOther)
            #expect(signedOut.location == "/login?next=/overview")
            let wrong = try await browser.signIn("nurse", password: "not the password")
            #expect(wrong.status == .unauthorized)
            let start = try await browser.signIn("nurse")
            #expect(start.status == .seeOther)
            #expect(try await browser.get("/").location == "/overview")
            let page = try await browser.get("/overview")
            #expect(page.status == .ok)
            let order = ["ann", "ben", "cleo"].compactMap { page.text.range(of: "data-patient=\"\($0)\"")?.lowerBound }
            #expect(order.count == 3 && order == order.sorted(), "Ann (an open alert) first, then by name")
            for home in ["home-1", "home-2", "home-3"] { #expect(page.text.contains(home)) }
            for name in [">Ann Weber<", ">Ben Weber<", ">cleo<"] {
                #expect(page.text.contains(name), "by the name the bridge sent, else (Cleo's) by id: \(name)")
            }
            #expect(page.text.contains("bodyMass 72.5 kg"))
            #expect(page.text.contains("heartRate 250 /min (out of range)"))
            #expect(!page.text.contains("95 kg"), "a deleted reading is retracted")
            #expect(!page.text.contains("Settings"), "the hub has no settings page")
            let ben = try await browser.get("/overview/ben")
            #expect(ben.status == .ok)
            #expect(ben.text.contains("bodyMass 80.5 kg"))
            #expect(ben.text.contains("No open alerts."), "Ben's alert was withdrawn")
            let signOut = try await browser.post("/logout", ["csrf": page.csrf ?? ""])
            #expect(signOut.status == .seeOther)
            #expect(try await browser.get("/overview").status == .seeOther, "signed out")
        }
    }

    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func aUserNotLinkedToAPatientCannotSeeThatPatient() async throws {
        try await withDashboard { browser in
            try await browser.signIn("carer")
            let list = try await browser.get("/overview")
            #expect(list.status == .ok)
            #expect(list.text.contains("data-patient=\"ann\""))
            #expect(!list.text.contains("data-patient=\"ben\"") && !list.text.contains("home-2"))
            let own = try await browser.get("/overview/ann")
            #expect(own.status == .ok)
            // The same walk as the bridge's care app (CareAppAccessTests), over the overview's patient routes.
            let problems = try await PatientAccessWalk.refusals(
                ["ben", "cleo", "nobody"].flatMap(PatientAccessWalk.overviewRoutes),
                browser: browser,
                csrf: try #require(own.csrf),
                form: ["alert": "home-2/1"],
                secrets: ["80.5", "64.2", "Ben Weber", "home-2", "home-3"]
            )
            #expect(problems.isEmpty, "\(problems)")
            #expect(try await browser.post("/logout", ["csrf": "forged"]).status == .forbidden, "CSRF")
        }
    }
}
