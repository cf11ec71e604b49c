import CarePlan
import CareStore
import CareWeb
import Foundation
import HTTPTypes
import TestSupport
import Testing

/// Who may see and change what: every patient route refuses a user not linked to that patient, forms need the
/// session's CSRF token, sign-in is throttled, sessions expire and can be revoked.
@Suite struct CareAppAccessTests {
    /// Every route under a patient, as a user reaches it (the record form with a valid CSRF token), and the
    /// overview's pages of the patient, which the hub's dashboard serves too (``PatientAccessWalk``).
    static let patientRoutes: [PatientAccessWalk.Route] =
        [
            (.get, "/patients/bob/today"), (.get, "/patients/bob/today?day=2026-11-20"), (.get, "/patients/bob/live"),
            (.post, "/patients/bob/today/record"), (.get, "/api/patients/bob/today"),
            (.get, "/api/patients/bob/calendar.ics"),
            (.get, "/api/patients/bob/today?day=2026-11-20"), (.get, "/patients/bob/insights"),
            (.get, "/patients/bob/insights?from=2026-11-16"), (.post, "/patients/bob/alerts/1/acknowledge"),
            (.get, "/patients/bob/connect"), (.post, "/patients/bob/connect/share"), (.get, "/patients/bob/report"),
            (.get, "/patients/bob/report?format=html"), (.get, "/patients/bob/readings"),
            (.get, "/patients/bob/readings?type=bodyMass&from=2026-11-20"), (.post, "/patients/bob/readings"),
            (.get, "/patients/bob/readings/\(sampleID)"), (.post, "/patients/bob/readings/\(sampleID)/release"),
            (.post, "/patients/bob/readings/\(sampleID)/delete"), (.get, "/patients/bob/devices"),
            (.post, "/patients/bob/inbox/\(sampleID)/assign"),
        ] + PatientAccessWalk.overviewRoutes("bob")
    /// A sample id in the routes that name one (the refusal comes before the sample is looked up).
    static let sampleID = "0193f0c2-5b1e-7a11-8c3d-2f6e4a9b1c0d"

    @Test func everyPatientRouteRefusesAUserNotLinkedToThatPatient() async throws {
        let fixture = try await CareAppFixture()
        try await fixture.test { browser in
            try await browser.signIn("anna")
            let own = try await browser.get("/patients/anna/today")
            #expect(own.status == .ok)
            let csrf = try #require(own.csrf)
            let form = [
                "task": "tablet-bob", "occurrence": "26", "day": "2026-11-27", "action": "done", "contact": "bob-gp",
                "type": "bodyMass", "reading": "80 kg", "reason": "checked", "confirm": "yes", "alert": "1",
            ]
            let pages = Self.patientRoutes.filter { $0.method == .get }
            let forms = Self.patientRoutes.filter { $0.method == .post }
            let problems =
                try await PatientAccessWalk.refusals(
                    pages,
                    browser: browser,
                    csrf: csrf,
                    form: form,
                    secrets: ["Bob Weber", "tablet-bob"]
                )
                + PatientAccessWalk.refusals(forms, browser: browser, csrf: csrf, form: form, secrets: ["Bob Weber"])
            #expect(problems.isEmpty, "\(problems)")
            let overview = try await browser.get("/overview")
            #expect(overview.status == .ok)
            #expect(!overview.text.contains("Bob Weber"), "the overview lists only the patients the user may see")
            let api = try await browser.get("/api/patients/bob/today")
            #expect(api.text == #"{"error":"You are not linked to this patient."}"#)
        }
        // Nothing was recorded for Bob by Anna's post.
        let bobs = try await fixture.store.scoped(to: "bob").events(
            matching: EventQuery(from: CareAppFixture.start.addingTimeInterval(-3600), to: CareAppFixture.start)
        )
        #expect(bobs.allSatisfy { $0.outcome == nil })
        await #expect(try fixture.store.scoped(to: "bob").samples(matching: SampleQuery(quarantine: .included)).isEmpty)
    }

    @Test func aClinicianSeesTheLinkedPatientsAndTheAdminEveryone() async throws {
        let fixture = try await CareAppFixture()
        try await fixture.store.setPatients(userID: "nurse", ["bob"])
        try await fixture.test { browser in
            let landing = try await browser.signIn("nurse")
            #expect(landing.location == "/")
            let start = try await browser.get("/")
            #expect(start.location == "/patients")
            let list = try await browser.get("/patients")
            #expect(list.text.contains("Bob Weber") && !list.text.contains("Anna Weber"))
            #expect(try await browser.get("/patients/anna/today").status == .forbidden)
            #expect(try await browser.get("/patients/bob/today").status == .ok)
            // The overview's record of a day is the bridge's too, from its own store.
            let record = try await browser.get("/overview/bob/record?day=2026-11-27")
            #expect(record.status == .ok && record.text.contains("Bob Weber"))
            #expect(try await browser.get("/overview/anna/record").status == .forbidden)
        }
        try await fixture.test { browser in
            try await browser.signIn("admin")
            let list = try await browser.get("/patients")
            #expect(list.text.contains("Bob Weber") && list.text.contains("Anna Weber"))
        }
    }

    @Test func signedOutRequestsGoToTheLoginPageAndTheAPIAnswers401() async throws {
        let fixture = try await CareAppFixture()
        try await fixture.test { browser in
            let page = try await browser.get("/patients/anna/today?day=2026-11-20")
            #expect(page.status == .seeOther)
            #expect(page.location == "/login?next=/patients/anna/today%3Fday%3D2026-11-20")
            #expect(try await browser.get("/api/patients/anna/today").status == .unauthorized)
            #expect(try await browser.post("/patients/anna/today/record", ["action": "done"]).status == .unauthorized)
        }
    }

    @Test func aFormWithoutTheSessionsCSRFTokenIsRefusedAndChangesNothing() async throws {
        let fixture = try await CareAppFixture()
        try await fixture.test { browser in
            try await browser.signIn("anna")
            let fields = ["task": "tablet-anna", "occurrence": "26", "day": "2026-11-27", "action": "done"]
            let missing = try await browser.post("/patients/anna/today/record", fields)
            #expect(missing.status == .forbidden)
            #expect(missing.text.contains("did not come from CareBridge"))
            var wrong = fields
            wrong["csrf"] = "not-the-token"
            #expect(try await browser.post("/patients/anna/today/record", wrong).status == .forbidden)
            // Sign-out needs the token too (no logging people out from another site).
            #expect(try await browser.post("/logout", [:]).status == .forbidden)
            #expect(try await browser.get("/patients/anna/today").status == .ok, "still signed in")
            // The login form's token must match its cookie.
            browser.forget("cb_session")
            _ = try await browser.get("/login")
            let forged = try await browser.post(
                "/login",
                ["csrf": "forged", "username": "anna", "password": CareAppFixture.password]
            )
            #expect(forged.status == .forbidden)
        }
        let events = try await fixture.store.scoped(to: "anna").events(
            matching: EventQuery(from: CareAppFixture.start.addingTimeInterval(-3600), to: CareAppFixture.start)
        )
        #expect(events.allSatisfy { $0.outcome == nil })
    }

    @Test func repeatedWrongPasswordsAreThrottledUntilTheDelayPasses() async throws {
        let fixture = try await CareAppFixture()
        try await fixture.test { browser in
            for attempt in 1...LoginThrottle.freeAttempts {
                let page = try await browser.signIn("anna", password: "wrong password \(attempt)")
                #expect(page.status == .unauthorized)
                #expect(page.text.contains("The user name or the password is wrong."))
            }
            // Now even the right password waits, and the page says for how long.
            let throttled = try await browser.signIn("anna")
            #expect(throttled.status == .tooManyRequests)
            #expect(throttled.text.contains("Too many wrong passwords. Try again in 1 minute."))
            #expect(throttled.headers[.retryAfter] == "30")
            #expect(browser.cookies["cb_session"] == nil)
            // Another user is not locked out by Anna's name.
            #expect(try await browser.signIn("bob").status == .seeOther)
            browser.forget("cb_session")
            fixture.advance(by: LoginThrottle.baseDelay + 1)
            #expect(try await browser.signIn("anna").status == .seeOther)
        }
    }

    @Test func anIdleSessionExpiresAndARevokedOneEndsAtOnce() async throws {
        let fixture = try await CareAppFixture()
        try await fixture.test { browser in
            try await browser.signIn("anna")
            #expect(try await browser.get("/patients/anna/today").status == .ok)
            fixture.advance(by: fixture.app.configuration.idleTimeout + 1)
            let expired = try await browser.get("/patients/anna/today")
            #expect(expired.status == .seeOther && expired.location?.hasPrefix("/login?next=") == true)

            try await browser.signIn("anna")
            #expect(try await browser.get("/patients/anna/today").status == .ok)
            #expect(try await fixture.store.endSessions(userID: "anna") == 1)
            #expect(try await browser.get("/patients/anna/today").status == .seeOther)

            // A new password ends sessions too.
            try await browser.signIn("anna")
            try await fixture.store.setPasswordHash(userID: "anna", PasswordHasher(cost: 4).hash("another password"))
            #expect(try await browser.get("/patients/anna/today").status == .seeOther)
        }
    }

    @Test func useKeepsASessionOpenUntilItsHardLimit() async throws {
        let fixture = try await CareAppFixture()
        let idle = fixture.app.configuration.idleTimeout
        try await fixture.test { browser in
            try await browser.signIn("anna")
            // Used every two thirds of the idle timeout, the session stays open past one idle timeout…
            for _ in 0..<3 {
                fixture.advance(by: idle * 2 / 3)
                #expect(try await browser.get("/patients/anna/today").status == .ok)
            }
            // …but not past the hard limit, however often it is used.
            let limit = fixture.app.configuration.sessionLimit
            var elapsed = idle * 2
            while elapsed < limit {
                fixture.advance(by: idle * 2 / 3)
                elapsed += idle * 2 / 3
                _ = try await browser.get("/patients/anna/today")
            }
            fixture.advance(by: idle * 2 / 3)
            #expect(try await browser.get("/patients/anna/today").status == .seeOther)
        }
    }

    @Test func sessionCookiesAreHttpOnlyAndStrictAndTheStoreKeepsOnlyTheTokensHash() async throws {
        let fixture = try await CareAppFixture()
        try await fixture.test { browser in
            let form = try await browser.get("/login")
            let signedIn = try await browser.post(
                "/login",
                ["csrf": form.csrf ?? "", "username": "anna", "password": CareAppFixture.password]
            )
            let setCookie = signedIn.headers[values: .setCookie].first { $0.hasPrefix("cb_session=") } ?? ""
            #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"), "\(setCookie)")
            #expect(!setCookie.contains("Secure"), "no TLS in this test")
            let token = try #require(browser.cookies["cb_session"])
            let session = try await fixture.store.session(
                tokenHash: SessionToken.hash(token),
                at: CareAppFixture.start,
                extendTo: CareAppFixture.start,
                limit: 3600
            )
            #expect(session?.user.id == "anna")
            let raw = try Data(contentsOf: fixture.scratch.url("store.sqlite"))
            #expect(raw.range(of: Data(token.utf8)) == nil, "the token itself is not in the store file")
            #expect(
                signedIn.headers[HTTPField.Name("Content-Security-Policy")!]?.contains("default-src 'self'") == true
            )
        }
    }

    @Test func aNextTargetOffThisSiteIsIgnored() async throws {
        let fixture = try await CareAppFixture()
        try await fixture.test { browser in
            let form = try await browser.get("/login")
            for next in ["//evil.example/", "https://evil.example/", "/\\evil.example"] {
                browser.forget("cb_session")
                let again = try await browser.get("/login")
                let page = try await browser.post(
                    "/login",
                    [
                        "csrf": again.csrf ?? form.csrf ?? "", "username": "anna", "password": CareAppFixture.password,
                        "next": next,
                    ]
                )
                #expect(page.location == "/", "\(next) -> \(page.location ?? "nil")")
            }
        }
    }
}
