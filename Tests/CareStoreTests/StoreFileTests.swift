import BridgeCore
import CareStore
import Foundation
import GATTDecoding
import GRDB
import TestSupport
import Testing

@Suite struct StoreFileTests {
    @Test func createsFile0600InDirectory0700() async throws {
        let fixture = try StoreFixture()
        let path = fixture.directory.path("care/store.sqlite")
        let fileMode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        let directoryMode = try #require(
            FileManager.default.attributesOfItem(atPath: fixture.directory.path("care"))[.posixPermissions] as? Int
        )
        #expect(fileMode & 0o777 == 0o600)
        #expect(directoryMode & 0o777 == 0o700)
        // The WAL companion exists once the pool has written, with the main file's mode.
        _ = try await fixture.store.recordSample(StoreFixture.weight(70, at: Date()))
        if let walMode = try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.posixPermissions] as? Int {
            #expect(walMode & 0o077 == 0)
        }
    }

    @Test func usesWALJournal() throws {
        let fixture = try StoreFixture()
        let mode = try fixture.store.databaseWriter.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
    }

    @Test func appliesNamedMigrationsOnceAndKeepsDataOnReopen() async throws {
        let fixture = try StoreFixture()
        #expect(
            try await fixture.store.appliedMigrations() == StoreMigrations.all
        )
        let sample = StoreFixture.weight(71.5, at: Date(timeIntervalSince1970: 1_800_000_000))
        try await fixture.store.recordSample(sample)
        let reopened = try CareStore(
            path: fixture.directory.path("care/store.sqlite"),
            bridgeZone: StoreFixture.berlin,
            logger: .quiet
        )
        #expect(
            try await reopened.appliedMigrations() == StoreMigrations.all
        )
        let stored = try #require(try await reopened.sample(id: sample.id))
        #expect(stored.sample == sample)
        let tables = try await reopened.databaseWriter.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        }
        #expect(tables.contains("task") && tables.contains("sampleRow") && tables.contains("outcome"))
        #expect(!tables.contains("sample"))
        #expect(tables.contains("outcomeValue"))
    }

    @Test func defaultPathFollowsEnvironment() {
        #expect(
            StoreLocation.defaultPath(environment: ["CAREBRIDGE_STORE": "/x/y.sqlite", "HOME": "/h"]) == "/x/y.sqlite"
        )
        #expect(
            StoreLocation.defaultPath(environment: ["XDG_DATA_HOME": "/data", "HOME": "/h"])
                == "/data/carebridge/store.sqlite"
        )
        #expect(StoreLocation.defaultPath(environment: ["HOME": "/h"]) == "/h/.local/share/carebridge/store.sqlite")
        // A relative XDG_DATA_HOME is invalid per the spec and ignored.
        #expect(
            StoreLocation.defaultPath(environment: ["XDG_DATA_HOME": "rel", "HOME": "/h"])
                == "/h/.local/share/carebridge/store.sqlite"
        )
    }

    @Test func refusesAPathUnderAFile() throws {
        let directory = try ScratchDirectory("carestore-")
        let file = directory.path("plain")
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        #expect(throws: CareStoreError.self) {
            _ = try CareStore(path: file + "/store.sqlite", bridgeZone: .current, logger: .quiet)
        }
    }

    @Test func storedSampleRoundTripsEveryField() async throws {
        let fixture = try StoreFixture()
        let sample = StoreFixture.weight(80.25, at: Date(timeIntervalSince1970: 1_800_000_000)).changed {
            $0.deviceTime = .init(year: 2027, month: 1, day: 15, hours: 8, minutes: 0, seconds: 0)
            $0.clockOffset = -3.5
            $0.metadata = ["user": "2", "note": "after breakfast"]
            $0.transmittedValue = 176.9
            $0.transmittedUnit = .pound
            $0.source.device?.model = "BF 720"
        }
        try await fixture.store.recordSample(sample, recordedAt: Date(timeIntervalSince1970: 1_800_000_100))
        let stored = try #require(try await fixture.store.sample(id: sample.id))
        #expect(stored.sample == sample)
        #expect(stored.sample.idempotencyKey == sample.idempotencyKey)
        #expect(stored.recordedAt == Date(timeIntervalSince1970: 1_800_000_100))
    }

    @Test func refusesAStoreWrittenByANewerSchema() throws {
        let fixture = try StoreFixture()
        try fixture.store.databaseWriter.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99')")
        }
        let error = try #require(throws: CareStoreError.self) {
            _ = try CareStore(path: fixture.directory.path("care/store.sqlite"), bridgeZone: .current, logger: .quiet)
        }
        #expect(error.message.contains("newer"))
    }

    @Test func observedEventsUpdateAfterASample() async throws {
        let fixture = try StoreFixture()
        try await fixture.store.addTask(StoreFixture.weighIn())
        let query = EventQuery(
            from: StoreFixture.berlinTime(2026, 11, 10),
            to: StoreFixture.berlinTime(2026, 11, 11),
            taskIDs: ["weigh-in"]
        )
        var iterator = fixture.store.observeEvents(matching: query).makeAsyncIterator()
        let initial = try #require(try await iterator.next())
        #expect(!initial.isEmpty && initial.allSatisfy { !$0.isCompleted })
        try await fixture.store.recordSample(StoreFixture.weight(72, at: StoreFixture.berlinTime(2026, 11, 10, 7)))
        let updated = try #require(try await iterator.next())
        #expect(updated.contains { $0.isCompleted })
    }
}
