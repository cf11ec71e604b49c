import BridgeCore
import CarePlan
import CareStore
import Foundation
import GRDB
import Logging
import TestSupport
import Testing

/// The `v8-people` migration on a store file the release before it wrote (`Fixtures/store-v7-single-patient.sqlite`,
/// see `Fixtures/README.md`): everything moves to one default patient and plan, and no outcome, sample id or
/// event changes.
@Suite struct PeopleMigrationTests {
    static let zone = TimeZone(identifier: "Europe/Berlin")!
    static let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    /// The fixture's month of events (November 2026, Berlin).
    static let month = EventQuery(
        from: Date(timeIntervalSince1970: 1_793_487_600),
        to: Date(timeIntervalSince1970: 1_796_079_600)
    )

    struct Snapshot: Equatable {
        var samples: [String: String] = [:]
        var values: [String: String] = [:]
        var outcomes: [String: String] = [:]
        var migrations: [String] = []

        init(_ db: Database) throws {
            let snapshot = try SampleIDMigrationTests.Snapshot(db)
            // Keyed by id (the compact layout of `v10-compact-samples` has no rowids).
            for (position, id) in snapshot.ids {
                let hex = withUnsafeBytes(of: id.uuid) { $0.map { String(format: "%02X", $0) }.joined() }
                samples[hex] = "\(hex)/\(snapshot.deleted.contains(position))"
            }
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT o.taskUUID, o.occurrence, v.position, v.value, v.unit, v.measuredAt, v.sampleID
                    FROM outcomeValue v JOIN outcome o ON o.id = v.outcomeID
                    """
            ) {
                values["\(row[0] as String)/\(row[1] as Int)/\(row[2] as Int)"] =
                    "\(row[3] as Double) \(row[4] as String) \(row[5] as Double) \(SampleIDMigrationTests.Snapshot.idText(row[6]) ?? "-")"
            }
            for row in try Row.fetchAll(db, sql: "SELECT taskUUID, occurrence, eventStart, eventEnd FROM outcome") {
                outcomes["\(row[0] as String)/\(row[1] as Int)"] = "\(row[2] as Double)-\(row[3] as Double)"
            }
            migrations = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
        }
    }

    static func copyFixture() throws -> (directory: URL, path: String) {
        let directory = try TemporaryDirectory.make()
        let care = directory.appendingPathComponent("care")
        try FileManager.default.createDirectory(at: care, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: care.path)
        let path = care.appendingPathComponent("store.sqlite").path
        try FileManager.default.copyItem(
            atPath: PackageRoot.url.appendingPathComponent(
                "Tests/BridgeRuntimeTests/Fixtures/store-v7-single-patient.sqlite"
            ).path,
            toPath: path
        )
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return (directory, path)
    }

    @Test func anExistingStoreMovesToOneDefaultPatientWithoutChangingAnyOutcomeSampleOrEvent() async throws {
        let (directory, path) = try Self.copyFixture()
        defer { try? FileManager.default.removeItem(at: directory) }
        let old = try await DatabaseQueue(path: path).read { db in try Snapshot(db) }
        #expect(old.migrations.last == "v7-session-variables")
        #expect(old.samples.count == 69 && old.values.count == 24)

        let store = try CareStore(path: path, bridgeZone: Self.zone, logger: Self.logger)
        #expect(try await store.appliedMigrations().contains("v8-people"))
        var new = try await store.databaseWriter.read { db in try Snapshot(db) }
        #expect(
            new.migrations == old.migrations + StoreMigrations.after("v7-session-variables")
        )
        new.migrations = old.migrations
        #expect(new == old)

        // One default patient and plan hold every task and sample.
        #expect(try await store.patients().map(\.id) == ["default"])
        #expect(try await store.plans().map(\.id) == ["default"])
        #expect(try await store.resolvePatient(nil) == "default")
        let tasks = try await store.tasks()
        #expect(tasks.count == 8)
        #expect(try await store.scoped(to: "default").tasks().map(\.task.id) == tasks.map(\.task.id))
        let all = try await store.samples(matching: SampleQuery(includesDeleted: true, quarantine: .included))
        #expect(all.count == 69)
        #expect(all.allSatisfy { $0.patientID == "default" && $0.inboxReason == nil })
        #expect(try await store.unassignedCount() == 0)

        // The events read the same, scoped or not, and storing every reading again adds and changes nothing.
        let events = try await store.events(matching: Self.month)
        #expect(try await store.scoped(to: "default").events(matching: Self.month) == events)
        let live = try await store.samples(matching: SampleQuery(quarantine: .included)).map(\.sample)
        let again = try await store.recordSamples(live)
        #expect(again.inserted == 0 && again.duplicates == live.count && again.eventsUpdated == 0)
        #expect(try await store.events(matching: Self.month) == events)
        #expect(try await store.databaseWriter.read { db in try Snapshot(db) }.values == old.values)
    }

    /// After the migration a second patient can be added; the default patient keeps its data, and readings of
    /// an unowned device now wait in the inbox instead of landing on anyone.
    @Test func aSecondPatientAfterTheMigrationSendsUnownedReadingsToTheInbox() async throws {
        let (directory, path) = try Self.copyFixture()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try CareStore(path: path, bridgeZone: Self.zone, logger: Self.logger)
        let before = try await store.events(matching: Self.month)
        try await store.savePatient(Patient(id: "guest-room", name: "Second patient"))
        await #expect(throws: CareStoreError.self) { try await store.resolvePatient(nil) }
        #expect(try await store.scoped(to: "default").events(matching: Self.month) == before)
        #expect(try await store.scoped(to: "guest-room").events(matching: Self.month).isEmpty)
        let reading = QuantitySample(
            type: .bodyMass,
            value: 70,
            unit: .kilogram,
            start: Date(timeIntervalSince1970: 1_795_600_000),
            source: SampleSource(
                kind: .device,
                decoder: "weight-measurement",
                device: DeviceIdentity(address: "AA:BB:CC:00:00:01")
            ),
            rawPayload: [0x00, 0x46]
        )
        let report = try await store.recordSamples([reading])
        #expect(report.unassigned == 1 && report.eventsUpdated == 0)
        #expect(try await store.events(matching: Self.month) == before)
    }
}
