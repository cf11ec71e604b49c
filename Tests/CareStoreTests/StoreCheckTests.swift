import CareStore
import Foundation
import GRDB
import Logging
import TestSupport
import Testing

/// ``StoreCheck`` on stores changed behind the store's back: a migration this release does not know (a newer
/// CareBridge wrote it), one not yet applied (an older store), and a row whose parent is gone.
@Suite struct StoreCheckTests {
    func makeStore() throws -> (ScratchDirectory, String) {
        let directory = try ScratchDirectory("store-check-")
        let path = directory.path("store.sqlite")
        _ = try CareStore(path: path, bridgeZone: StoreFixture.berlin, logger: .quiet)
        return (directory, path)
    }

    @Test func aMigrationThisReleaseDoesNotKnowMakesTheStoreUnhealthy() throws {
        let (directory, path) = try makeStore()
        defer { _ = directory }
        #expect(try StoreCheck.run(path: path).level == .current(StoreMigrations.all.last!))
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: "INSERT INTO grdb_migrations VALUES ('v99-from-the-future')") }
        try queue.close()
        let check = try StoreCheck.run(path: path)
        #expect(check.level == .newer(unknown: ["v99-from-the-future"]))
        #expect(!check.isHealthy)
    }

    @Test func aStoreBehindTheSchemaIsHealthyAndNamesWhatIsPending() throws {
        let (directory, path) = try makeStore()
        defer { _ = directory }
        let last = StoreMigrations.all.last!
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = ?", arguments: [last])
        }
        try queue.close()
        let check = try StoreCheck.run(path: path)
        #expect(check.level == .behind(last: StoreMigrations.all.dropLast().last, pending: [last]))
        #expect(check.isHealthy)
    }

    @Test func aRowWhoseParentIsGoneIsAMissingReference() throws {
        let (directory, path) = try makeStore()
        defer { _ = directory }
        var configuration = Configuration()
        configuration.foreignKeysEnabled = false
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        // A child table made for the test: SQLite's foreign_key_check reads every table's declared keys.
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE checkChild (parent TEXT REFERENCES task(uuid))")
            try db.execute(sql: "INSERT INTO checkChild VALUES ('no-such-task')")
        }
        try queue.close()
        let check = try StoreCheck.run(path: path)
        #expect(check.missingReferences.map(\.table) == ["checkChild"])
        #expect(check.missingReferences.map(\.rowid) == [1])
        #expect(check.missingReferences.map(\.parent) == ["task"])
        #expect(check.integrityProblems.isEmpty)
        #expect(!check.isHealthy)
    }
}
