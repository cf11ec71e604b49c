import BridgeCore
import BridgeRuntime
import DeviceProfiles
import Foundation
import GRDB
import Logging
import SampleIngest
import SessionReplay
import TestSupport
import Testing

@testable import CareStore

/// The `v10-compact-samples` migration on a store file the release before it wrote
/// (`Fixtures/store-v9-before-compact.sqlite`, see `Fixtures/README.md`): every sample, outcome value, outbox
/// entry and tombstone reads back as before (times to the millisecond), an interrupted conversion continues
/// where it stopped, and replaying the same sessions into the converted store adds nothing.
@Suite struct CompactSampleMigrationTests {
    static let zone = TimeZone(identifier: "Europe/Berlin")!
    static let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    static func copyFixture() throws -> (directory: URL, path: String) {
        let directory = try TemporaryDirectory.make()
        let care = directory.appendingPathComponent("care")
        try FileManager.default.createDirectory(at: care, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: care.path)
        let path = care.appendingPathComponent("store.sqlite").path
        try FileManager.default.copyItem(
            atPath: SampleIDMigrationTests.fixtures.appendingPathComponent("store-v9-before-compact.sqlite").path,
            toPath: path
        )
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return (directory, path)
    }

    /// What the old file holds, read before CareBridge opens it: the samples as the release that wrote it read
    /// them (its row decoder), plus the raw payload and metadata text of each, and the tables that name samples.
    struct Before {
        var samples: [UUID: StoredSample] = [:]
        var payloads: [UUID: Data] = [:]
        var metadata: [UUID: String] = [:]
        var values: [[String]] = []
        var outbox: [[String]] = []

        init(_ db: Database) throws {
            let rows = try Row.fetchAll(
                db,
                sql: "SELECT \(SampleRecord.selection), sample.payload, sample.metadata \(SampleRecord.from)"
            )
            for row in rows {
                let record = try SampleRecord(row: row)
                samples[record.id] = try record.storedSample()
                payloads[record.id] = row[26]
                metadata[record.id] = row[27]
            }
            values = try Self.table(db, "SELECT * FROM outcomeValue ORDER BY outcomeID, position")
            outbox = try Self.table(db, "SELECT * FROM outboxEntry ORDER BY sequence")
        }

        static func table(_ db: Database, _ sql: String) throws -> [[String]] {
            try Row.fetchAll(db, sql: sql).map { row in row.databaseValues.map(\.description) }
        }
    }

    /// `date` in whole milliseconds, as the compact layout keeps times.
    static func milliseconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
    }

    /// Every field of `after` is `before`'s, times to the millisecond.
    static func expectSame(_ after: StoredSample, _ before: StoredSample) {
        let a = after.sample
        let b = before.sample
        #expect(after.id == before.id)
        #expect(a.type == b.type && a.value == b.value && a.unit == b.unit, "\(b.id)")
        #expect(a.transmittedValue == b.transmittedValue && a.transmittedUnit == b.transmittedUnit, "\(b.id)")
        #expect(a.start == milliseconds(b.start) && a.end == milliseconds(b.end), "\(b.id)")
        #expect(a.receivedAt == milliseconds(b.receivedAt), "\(b.id)")
        #expect(a.source == b.source && a.deviceTime == b.deviceTime && a.clockOffset == b.clockOffset, "\(b.id)")
        #expect(a.rawPayload == b.rawPayload && a.index == b.index && a.metadata == b.metadata, "\(b.id)")
        #expect(a.comparator == b.comparator && a.quarantineReason == b.quarantineReason, "\(b.id)")
        #expect(after.recordedAt == milliseconds(before.recordedAt), "\(b.id)")
        #expect(after.deletedDate == before.deletedDate && after.releaseReason == before.releaseReason, "\(b.id)")
        #expect(after.patientID == before.patientID && after.inboxReason == before.inboxReason, "\(b.id)")
        #expect(after.routedBy == before.routedBy, "\(b.id)")
        // The stored id is the one the reading's key gives: a re-import finds it.
        #expect(a.idFromKey() == after.id, "\(b.id)")
    }

    static func all(_ store: CareStore) async throws -> [StoredSample] {
        try await store.samples(matching: SampleQuery(includesDeleted: true, quarantine: .included))
    }

    @Test func everySampleOutcomeOutboxEntryAndTombstoneReadsBackAsBefore() async throws {
        let (directory, path) = try Self.copyFixture()
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try await DatabaseQueue(path: path).read { db in try Before(db) }
        #expect(before.samples.count == 233)
        #expect(before.samples.values.filter { $0.deletedDate != nil }.count == 1)
        #expect(before.samples.values.filter { $0.sample.deviceTime != nil }.count == 55)
        #expect(before.samples.values.filter { $0.sample.comparator != nil }.count == 2)
        #expect(before.samples.values.filter { $0.sample.source.kind == .manual }.count == 3)
        #expect(before.values.count == 104 && before.outbox.count == 233)

        let messages = CollectedMessages()
        let logger = Logger(label: "test") { _ in CollectingLogHandler(messages: messages) }
        let store = try CareStore(path: path, bridgeZone: Self.zone, logger: logger)
        #expect(try await store.appliedMigrations().contains(CompactSampleSchema.migrationName))
        let warnings = messages.all.filter { $0.level >= .warning }.map(\.text)
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("converting 233 samples to the compact layout") == true)
        #expect(messages.all.contains { $0.text == "converted 233 of 233 samples to the compact layout" })
        #expect(messages.all.contains { $0.text == "store upgraded" })

        let after = try await Self.all(store)
        #expect(after.count == 233)
        for sample in after {
            guard let old = before.samples[sample.id] else {
                Issue.record("sample \(sample.id) was not in the old store")
                continue
            }
            Self.expectSame(sample, old)
            #expect(Data(sample.sample.rawPayload) == before.payloads[sample.id])
            #expect(try await store.sample(id: sample.id) == sample)
        }
        #expect(try await store.sampleCount() == 232)

        // The tables that name samples are untouched, and what they name is found.
        let (values, outbox) = try await store.databaseWriter.read { db in
            (
                try Before.table(db, "SELECT * FROM outcomeValue ORDER BY outcomeID, position"),
                try Before.table(db, "SELECT * FROM outboxEntry ORDER BY sequence")
            )
        }
        #expect(values == before.values)
        #expect(outbox == before.outbox)
        let pending = try await store.pendingOutbox(limit: 1000)
        #expect(pending.count == 233 && pending.allSatisfy { $0.sample?.id == $0.sampleID })
        let events = try await store.events(
            matching: EventQuery(
                from: Date(timeIntervalSince1970: 1_793_487_600),
                to: Date(timeIntervalSince1970: 1_796_079_600)
            )
        )
        let named = events.flatMap { $0.outcome?.values.compactMap(\.sampleID) ?? [] }
        #expect(named.count == 104)
        for id in named { #expect(try await store.sample(id: id)?.deletedDate == nil) }

        // Opening it again does nothing more.
        let count = messages.all.count
        _ = try CareStore(path: path, bridgeZone: Self.zone, logger: logger)
        #expect(messages.all.dropFirst(count).allSatisfy { $0.level < .warning && $0.text != "store upgraded" })
    }

    @Test func anInterruptedConversionContinuesWhereItStopped() async throws {
        let (directory, path) = try Self.copyFixture()
        defer { try? FileManager.default.removeItem(at: directory) }
        let queue = try DatabaseQueue(path: path)
        let before = try await queue.read { db in try Before(db) }
        // One chunk committed, the next one interrupted (its transaction rolled back).
        await #expect(try queue.write { db in try CompactSampleSchema.convert(db, limit: 100) } == 100)
        struct PowerCut: Error {}
        #expect(throws: PowerCut.self) {
            try queue.write { db in
                _ = try CompactSampleSchema.convert(db, limit: 50)
                throw PowerCut()
            }
        }
        // The old layout is complete and the partial copy is where the committed chunk left it.
        let (old, copied, pending) = try await queue.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM sample"),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM sampleRow"),
                try CompactSampleSchema.pendingSamples(db)
            )
        }
        #expect(old == 233 && copied == 100 && pending == 133)
        try queue.close()

        let messages = CollectedMessages()
        let logger = Logger(label: "test") { _ in CollectingLogHandler(messages: messages) }
        let store = try CareStore(path: path, bridgeZone: Self.zone, logger: logger)
        #expect(messages.all.contains { $0.text.contains("converting 133 samples to the compact layout") })
        let after = try await Self.all(store)
        #expect(after.count == 233)
        for sample in after {
            guard let old = before.samples[sample.id] else {
                Issue.record("sample \(sample.id) was not in the old store")
                continue
            }
            Self.expectSame(sample, old)
        }
        let tables = try await store.databaseWriter.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        #expect(!tables.contains("sample") && !tables.contains("sampleConversion"))
    }

    @Test func replayingTheSameSessionsIntoTheConvertedStoreAddsNothing() async throws {
        let (directory, path) = try Self.copyFixture()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try CareStore(path: path, bridgeZone: Self.zone, logger: Self.logger)
        let before = try await Self.all(store)
        let catalog = DeviceProfileLoader.load(directories: [PackageRoot.devices]).catalog
        // The recordings the fixture was written from (recordings added later are not in it), the heart-rate
        // strap cut to its first 70 lines.
        let made = [
            "blood-pressure-current-time-handshake", "blood-pressure-kpa", "body-composition-scale",
            "glucose-meter-download-twice", "glucose-meter-interrupted-download", "glucose-meter-racp",
            "glucose-meter-sequence-reset", "mi-body-composition-scale-2-broadcast", "pulse-oximeter-history",
            "pulse-oximeter-reconnect", "thermometer-fahrenheit", "uds-scale-registration-and-consent",
            "weight-scale-morning-weigh-in", "weight-scale-stored-burst",
        ]
        var paths = made.map { PackageRoot.recordings.appendingPathComponent("\($0).jsonl").path }
        let strap = try String(
            contentsOf: PackageRoot.recordings.appendingPathComponent("heart-rate-strap-20-minutes.jsonl"),
            encoding: .utf8
        )
        let firstMinute = directory.appendingPathComponent("heart-rate-first-minute.jsonl")
        let lines = strap.split(separator: "\n", omittingEmptySubsequences: false).prefix(70)
        try (lines.joined(separator: "\n") + "\n").write(to: firstMinute, atomically: true, encoding: .utf8)
        paths.append(firstMinute.path)
        var samples = 0
        for recording in paths {
            let sink = CareStoreSink(store: store, recordedAt: Date(timeIntervalSince1970: 1_795_400_000))
            let report = try await PipelineRunner.replay(
                try ReplayTransport(path: recording, logger: Self.logger),
                catalog: catalog,
                configuration: PipelineConfiguration(timeZone: Self.zone),
                sink: sink,
                logger: Self.logger
            )
            samples += report.samples
            #expect(await sink.inserted == 0, "\(recording)")
        }
        #expect(samples == 238)  // every stored device sample (the deleted one included) and the repeats
        let typed: [(QuantityType, Double, String, String, String?)] = [
            (.bodyMass, 72.4, "kg", "2026-11-19T07:30:00", nil),
            (.bodyTemperature, 98.6, "°F", "2026-11-19T21:00:00", "after waking"),
            (.bodyTemperature, 45, "°C", "2026-11-20T21:00:00", nil),
        ]
        var manual: [QuantitySample] = []
        for (type, value, unit, time, note) in typed {
            manual.append(
                try ManualReading.sample(
                    type: type,
                    value: value,
                    unit: unit,
                    at: try Timestamp.parse(time, in: Self.zone),
                    note: note,
                    receivedAt: Date()
                )
            )
        }
        let report = try await store.recordSamples(manual)
        #expect(report.inserted == 0 && report.duplicates == 3)
        // A repeat adds metadata keys a sample lacks (RepeatMetadataTests): today's decoders also note each
        // quantity's resolution (`resolution.<type>`), which the release that wrote the fixture did not. Those
        // keys may be new; everything else reads back exactly as before.
        let after = try await Self.all(store)
        #expect(after.count == before.count)
        #expect(after.map(Self.withoutResolution) == before.map(Self.withoutResolution))
        #expect(after.contains { $0.sample.metadata.keys.contains { $0.hasPrefix("resolution.") } })
        for (old, new) in zip(before, after) {
            for (key, value) in old.sample.metadata {
                #expect(new.sample.metadata[key] == value, "\(old.sample.id) \(key)")
            }
        }
    }

    /// `stored` without the `resolution.*` metadata keys.
    static func withoutResolution(_ stored: StoredSample) -> StoredSample {
        var stored = stored
        stored.sample.metadata = stored.sample.metadata.filter { !$0.key.hasPrefix("resolution.") }
        return stored
    }
}
