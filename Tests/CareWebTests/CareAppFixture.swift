import CarePlan
import CareStore
import CareWeb
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Synchronization
import TestSupport

/// A store with two patients (Anna and Bob, each with a tablet, a pain question and a linked weigh-in), users for
/// each role, and the care app over it with a clock the test moves.
final class CareAppFixture: Sendable {
    static let zone = TimeZone(identifier: "Europe/Berlin")!
    static let password = "correct horse battery"
    /// Friday 2026-11-27, 09:30 in Berlin (inside the 08:00–10:00 tablet window).
    static let start = Date(timeIntervalSince1970: 1_795_768_200)

    let scratch: ScratchDirectory
    let store: CareStore
    let app: CareWebApp
    private let clock = FixtureClock()

    init() async throws {
        scratch = try ScratchDirectory("carebridge-web-")
        store = try CareStore(path: scratch.path("store.sqlite"), bridgeZone: Self.zone, logger: Logger(label: "test"))
        for patient in ["anna", "bob"] {
            let plan = Self.plan(patient)
            let document = try CarePlanDocument.parse(Data(plan.utf8), path: "\(patient).json", bridgeZone: Self.zone)
            _ = try store.applyPlan(document, at: Self.start.addingTimeInterval(-30 * 86400))
        }
        let hasher = PasswordHasher(cost: 4)
        for (id, role, patients) in [
            ("anna", CareUser.Role.patient, ["anna"]), ("bob", .patient, ["bob"]),
            ("nurse", .clinician, ["anna", "bob"]), ("admin", .admin, []),
        ] {
            try await store.addUser(
                CareUser(id: id, displayName: id.capitalized, role: role, patientIDs: patients),
                passwordHash: hasher.hash(Self.password)
            )
        }
        let clock = clock
        app = try CareWebApp(
            store: store,
            configuration: WebConfiguration(passwordCost: 4),
            logger: Logger(label: "test"),
            now: { clock.now() }
        )
    }

    /// The plan of the fixture's patient `patient` (three tasks), with `extraTasks` (JSON objects, comma first)
    /// appended to its task list.
    static func plan(_ patient: String, extraTasks: String = "") -> String {
        """
        {"patient": {"id": "\(patient)", "name": "\(patient.capitalized) Weber"},
         "contacts": [{"id": "\(patient)-gp", "name": "Dr. Gray", "category": "careTeam", "role": "physician",
                       "phones": ["+49 30 1234-567"], "emails": ["gray@example.org"],
                       "address": "Hauptstraße 1, Berlin", "receives": ["reports", "alerts"]}],
         "tasks": [
          {"id": "tablet-\(patient)", "title": "Take your tablet", "kind": "intervention",
           "schedule": {"timeZone": "Europe/Berlin", "elements": [
             {"start": "2026-11-01T08:00:00", "interval": {"days": 1}, "duration": 7200}]}},
          {"id": "pain-\(patient)", "title": "How bad is the pain?", "kind": "assessment",
           "answer": {"type": "scale", "min": 0, "max": 10},
           "schedule": {"timeZone": "Europe/Berlin", "elements": [
             {"start": "2026-11-01T00:00:00", "interval": {"days": 1}, "duration": "allDay"}]}},
          {"id": "weigh-\(patient)", "title": "Weigh yourself", "kind": "assessment",
           "schedule": {"timeZone": "Europe/Berlin", "elements": [
             {"start": "2026-11-01T00:00:00", "interval": {"days": 1}, "duration": "allDay"}]},
           "linkage": {"type": "bodyMass", "unit": "kg", "aggregation": "first"},
           "alerts": [{"id": "heavy", "when": {">": 70, "unit": "kg"}, "severity": "warning"}]}\(extraTasks)]}
        """
    }

    func advance(by seconds: TimeInterval) {
        clock.advance(by: seconds)
    }

    /// Runs `body` against the app's router in process.
    func test(_ body: @escaping @Sendable (Browser) async throws -> Void) async throws {
        let application = Application(router: app.router())
        try await application.test(.router) { client in
            try await body(Browser(client: client))
        }
    }
}

/// A client that keeps cookies, as a browser does, and reads CSRF tokens off pages.
final class Browser: Sendable {
    let client: any TestClientProtocol
    private let jar = Mutex<[String: String]>([:])

    init(client: any TestClientProtocol) {
        self.client = client
    }

    struct Page {
        var status: HTTPResponse.Status
        var headers: HTTPFields
        var text: String

        var location: String? { headers[.location] }

        /// The value of the first `name="csrf"` field.
        var csrf: String? {
            guard let range = text.range(of: "name=\"csrf\" value=\"") else { return nil }
            return String(text[range.upperBound...].prefix { $0 != "\"" })
        }
    }

    var cookies: [String: String] { jar.withLock { $0 } }

    func forget(_ name: String) {
        _ = jar.withLock { $0.removeValue(forKey: name) }
    }

    func get(_ uri: String) async throws -> Page {
        try await send(uri, method: .get, body: nil)
    }

    func post(_ uri: String, _ fields: [String: String]) async throws -> Page {
        let body = fields.sorted { $0.key < $1.key }.map { key, value in
            "\(key)=\(value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value)"
        }.joined(separator: "&")
        return try await send(uri, method: .post, body: body)
    }

    /// Signs in as `user`; returns the page the app redirected to.
    @discardableResult
    func signIn(_ user: String, password: String = CareAppFixture.password) async throws -> Page {
        let form = try await get("/login")
        return try await post("/login", ["csrf": form.csrf ?? "", "username": user, "password": password, "next": "/"])
    }

    private func send(_ uri: String, method: HTTPRequest.Method, body: String?) async throws -> Page {
        var headers: HTTPFields = [:]
        let cookieHeader = jar.withLock { $0.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }
        if !cookieHeader.isEmpty { headers[.cookie] = cookieHeader }
        if body != nil { headers[.contentType] = "application/x-www-form-urlencoded" }
        let response = try await client.execute(
            uri: uri,
            method: method,
            headers: headers,
            body: body.map { ByteBuffer(string: $0) }
        )
        for field in response.headers[values: .setCookie] {
            let pair = field.split(separator: ";")[0].split(separator: "=", maxSplits: 1)
            let name = String(pair[0])
            let value = pair.count > 1 ? String(pair[1]) : ""
            let expired = field.contains("Max-Age=0")
            jar.withLock { $0[name] = expired || value.isEmpty ? nil : value }
        }
        return Page(status: response.status, headers: response.headers, text: String(buffer: response.body))
    }
}

/// The app's wall clock in a test: starts at ``CareAppFixture/start`` and moves only when told.
final class FixtureClock: Sendable {
    private let date = Mutex(CareAppFixture.start)

    func now() -> Date { date.withLock { $0 } }

    func advance(by seconds: TimeInterval) {
        date.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}
