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
    static let password = Browser.password
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
            _ = try await store.applyPlan(document, at: Self.start.addingTimeInterval(-30 * 86400))
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

/// The app's wall clock in a test: starts at ``CareAppFixture/start`` and moves only when told.
final class FixtureClock: Sendable {
    private let date = Mutex(CareAppFixture.start)

    func now() -> Date { date.withLock { $0 } }

    func advance(by seconds: TimeInterval) {
        date.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}
