import BridgeCore
import CareStore
import Foundation
import GRDB
import Logging
import TestSupport
import Testing

/// The `v9-outcome-sample-id-blob` migration on a store file the release before it wrote
/// (`Fixtures/store-v7-session-variables.sqlite`, see `Fixtures/README.md`): every outcome value names its sample
/// by the same 16 bytes the sample table uses, and reading events, outcomes and samples gives what it gave before.
@Suite struct OutcomeSampleIDMigrationTests {
    static let zone = TimeZone(identifier: "Europe/Berlin")!
    static let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    /// A copy of the fixture in a fresh directory (0700, file 0600, as CareBridge makes them).
    static func copyFixture() throws -> (directory: URL, path: String) {
        let directory = try TemporaryDirectory.make()
        let care = directory.appendingPathComponent("care")
        try FileManager.default.createDirectory(at: care, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: care.path)
        let path = care.appendingPathComponent("store.sqlite").path
        try FileManager.default.copyItem(
            atPath: SampleIDMigrationTests.fixtures.appendingPathComponent("store-v7-session-variables.sqlite").path,
            toPath: path
        )
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return (directory, path)
    }

    /// Outcome values by (outcome, position): their value and the stored form of their sample id.
    static func values(_ db: Database) throws -> [String: (value: Double, sampleID: DatabaseValue)] {
        var values: [String: (Double, DatabaseValue)] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT outcomeID, position, value, sampleID FROM outcomeValue") {
            values["\(row[0] as Int64)/\(row[1] as Int)"] = (row[2], row[3])
        }
        return values
    }

    @Test func outcomeValuesNameTheirSamplesByTheSixteenBytesOfTheSampleTable() async throws {
        let (directory, path) = try Self.copyFixture()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (old, migrations) = try await DatabaseQueue(path: path).read { db in
            (try Self.values(db), try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"))
        }
        #expect(migrations.last == "v7-session-variables")
        let oldTexts = old.values.compactMap { value -> String? in
            guard case .string(let text) = value.sampleID.storage else { return nil }
            return text
        }
        #expect(oldTexts.count == 98)

        let store = try CareStore(path: path, bridgeZone: Self.zone, logger: Self.logger)
        #expect(try await store.appliedMigrations().contains("v9-outcome-sample-id-blob"))
        let new = try await store.databaseWriter.read { db in try Self.values(db) }
        #expect(Set(new.keys) == Set(old.keys))
        var named = 0
        for (key, before) in old {
            let after = try #require(new[key])
            #expect(after.value == before.value)
            switch before.sampleID.storage {
            case .string(let text):
                guard case .blob(let bytes) = after.sampleID.storage else {
                    Issue.record("\(key): sample id still \(after.sampleID)")
                    continue
                }
                let uuid = try #require(UUID(uuidString: text))
                #expect(bytes == withUnsafeBytes(of: uuid.uuid) { Data($0) })
                // The bytes are the sample's own id.
                #expect(try await store.sample(id: uuid)?.id == uuid)
                named += 1
            default:
                #expect(after.sampleID == before.sampleID)
            }
        }
        #expect(named == 98)

        // Events read the ids back, each finding its sample.
        let events = try await store.events(
            matching: EventQuery(
                from: Date(timeIntervalSince1970: 1_793_487_600),
                to: Date(timeIntervalSince1970: 1_796_079_600)
            )
        )
        let ids = events.flatMap { $0.outcome?.values.compactMap(\.sampleID) ?? [] }
        #expect(ids.count == 98)
        for id in ids { #expect(try await store.sample(id: id) != nil) }
    }

    @Test func anOutcomeWrittenAfterTheMigrationStoresSixteenBytes() async throws {
        let (directory, path) = try Self.copyFixture()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try CareStore(path: path, bridgeZone: Self.zone, logger: Self.logger)
        let sample = QuantitySample(
            type: .bodyMass,
            value: 71.9,
            unit: .kilogram,
            start: Date(timeIntervalSince1970: 1_795_590_000),
            source: SampleSource(kind: .manual)
        )
        _ = try await store.recordSamples([sample])
        let stored = try store.databaseWriter.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT typeof(sampleID), sampleID FROM outcomeValue WHERE sampleID = ?",
                arguments: [withUnsafeBytes(of: sample.id.uuid) { Data($0) }]
            )
        }
        #expect(stored.count >= 1)
        #expect(stored.allSatisfy { ($0[0] as String) == "blob" })
        #expect(
            try await store.databaseWriter.read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM outcomeValue WHERE typeof(sampleID) = 'text'")
            } == 0
        )
    }
}
