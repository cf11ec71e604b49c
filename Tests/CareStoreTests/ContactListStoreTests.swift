import BridgeCore
import CarePlan
import CareStore
import Foundation
import GRDB
import Logging
import Synchronization
import Testing

/// A plan file's contacts are stored in one transaction that reads the live plans once (issue #31: 100k contacts
/// took 84 s when each contact read every plan again), and all or none of them.
@Suite struct ContactListStoreTests {
    /// The SQL statements a store ran.
    final class StatementLog: Sendable {
        private let statements = Mutex<[String]>([])
        var all: [String] { statements.withLock { $0 } }
        func add(_ sql: String) { statements.withLock { $0.append(sql) } }
    }

    static let berlin = TimeZone(identifier: "Europe/Berlin")!
    static let now = Date(timeIntervalSince1970: 1_795_158_000)

    static func store() async throws -> (CareStore, StatementLog) {
        let log = StatementLog()
        var configuration = Configuration()
        configuration.prepareDatabase { db in db.trace { log.add($0.expandedDescription) } }
        let store = try CareStore(
            writer: try DatabaseQueue(configuration: configuration),
            bridgeZone: berlin,
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        )
        try await store.savePatient(
            Patient(id: "p", name: "P"),
            plan: PatientPlan(id: "plan", title: "Plan", patientID: "p")
        )
        return (store, log)
    }

    static func contacts(_ count: Int, plan: String = "plan") -> [CareContact] {
        (0..<count).map { CareContact(id: "c\($0)", planID: plan, name: "Contact \($0)", category: .careTeam) }
    }

    /// How many statements storing `count` contacts ran that read the care plans.
    static func planReads(storing count: Int) async throws -> Int {
        let (store, log) = try await store()
        let before = log.all.count
        let results = try await store.saveContacts(contacts(count), at: now)
        #expect(results.count == count && results.allSatisfy { $0 == .added })
        return log.all.dropFirst(before).filter { $0.contains("FROM carePlan") }.count
    }

    @Test func storingTenTimesTheContactsReadsThePlansAsOften() async throws {
        let few = try await Self.planReads(storing: 10)
        let many = try await Self.planReads(storing: 100)
        #expect(few == 1)
        #expect(many == few)
    }

    @Test func aContactNamingNoPlanStoresNoneOfTheList() async throws {
        let (store, _) = try await Self.store()
        let list =
            Self.contacts(5)
            + Self.contacts(1, plan: "missing").map {
                var contact = $0
                contact.id = "stray"
                return contact
            }
        await #expect(throws: CareStoreError.self) { try await store.saveContacts(list, at: Self.now) }
        #expect(try await store.contacts().isEmpty)
    }
}
