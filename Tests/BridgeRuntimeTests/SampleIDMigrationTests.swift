import BridgeCore
import BridgeRuntime
import CareStore
import DeviceProfiles
import Foundation
import GRDB
import Logging
import SampleIngest
import SessionReplay
import TestSupport
import Testing

/// The `v3-time-ordered-sample-ids` migration on a store file an older CareBridge wrote
/// (`Fixtures/store-v2-outbox.sqlite`, see `Fixtures/README.md`): ids are rewritten everywhere, and replaying the
/// same sessions into the migrated store adds nothing.
@Suite struct SampleIDMigrationTests {
    static let zone = TimeZone(identifier: "Europe/Berlin")!
    static let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
    static var fixtures: URL { PackageRoot.url.appendingPathComponent("Tests/BridgeRuntimeTests/Fixtures") }

    /// What the old file holds, read with plain SQL before CareBridge opens (and migrates) it.
    struct Snapshot {
        /// Sample id by rowid (the rebuilt table keeps rowids).
        var ids: [Int64: UUID] = [:]
        var deleted: Set<Int64> = []
        /// Outcome values: (task, occurrence, position) → (value, sample id text).
        var values: [String: (Double, String?)] = [:]
        /// Outbox entries: sequence → sample id.
        var outbox: [Int64: UUID] = [:]
        var migrations: [String] = []

        init(_ db: Database) throws {
            if try db.tableExists("sample") {
                for row in try Row.fetchAll(db, sql: "SELECT rowid, id, deletedDate FROM sample") {
                    let rowid: Int64 = row[0]
                    ids[rowid] = try Self.sampleID(row[1])
                    if (row[2] as Double?) != nil { deleted.insert(rowid) }
                }
            } else {
                // The compact layout (`v10-compact-samples`) has no rowids: rows are numbered in key order, and
                // an id is its key time (6 bytes, `detail.k` or the start) followed by `idTail`.
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT coalesce(json_extract(detail, '$.k'), start), idTail, json_extract(detail, '$.x')
                        FROM sampleRow ORDER BY type, start, idTail
                        """
                )
                for (position, row) in rows.enumerated() {
                    let keyTime: Int64 = row[0]
                    let tail: Data = row[1]
                    let prefix = (0..<6).map { UInt8(truncatingIfNeeded: keyTime >> (40 - 8 * $0)) }
                    ids[Int64(position)] = try Self.sampleID(Data(prefix + tail).databaseValue)
                    if (row[2] as Double?) != nil { deleted.insert(Int64(position)) }
                }
            }
            let valueRows = try Row.fetchAll(
                db,
                sql: """
                    SELECT o.taskID, o.occurrence, v.position, v.value, v.sampleID
                    FROM outcomeValue v JOIN outcome o ON o.id = v.outcomeID
                    """
            )
            for row in valueRows {
                values["\(row[0] as String)/\(row[1] as Int)/\(row[2] as Int)"] = (row[3], Self.idText(row[4]))
            }
            for row in try Row.fetchAll(db, sql: "SELECT sequence, sampleID FROM outboxEntry") {
                outbox[row[0]] = try Self.sampleID(row[1])
            }
            migrations = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
        }

        struct NotASampleID: Error { var value: DatabaseValue }

        /// An outcome value's sample id as lowercase text, whether stored as text (before
        /// `v9-outcome-sample-id-blob`) or as 16 bytes (since).
        static func idText(_ value: DatabaseValue) -> String? {
            switch value.storage {
            case .string(let text): return text
            case .blob: return (try? sampleID(value))?.uuidString.lowercased()
            default: return nil
            }
        }

        /// A stored sample id (16 bytes).
        static func sampleID(_ value: DatabaseValue) throws -> UUID {
            guard case .blob(let data) = value.storage, data.count == 16 else { throw NotASampleID(value: value) }
            let b = [UInt8](data)
            return UUID(
                uuid: (
                    b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]
                )
            )
        }
    }

    /// A copy of the fixture in a fresh directory (0700, file 0600, as CareBridge makes them).
    static func copyFixture() throws -> (directory: URL, path: String) {
        let directory = try TemporaryDirectory.make()
        let care = directory.appendingPathComponent("care")
        try FileManager.default.createDirectory(at: care, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: care.path)
        let path = care.appendingPathComponent("store.sqlite").path
        try FileManager.default.copyItem(
            atPath: fixtures.appendingPathComponent("store-v2-outbox.sqlite").path,
            toPath: path
        )
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return (directory, path)
    }

    /// The recordings the fixture was made from (the heart-rate strap cut to its first 70 lines, as then).
    static func recordings(in directory: URL) throws -> [String] {
        // The recordings the fixture store was written from (later recordings are not in it).
        let newer: Set<String> = [
            "glucose-meter-download-twice.jsonl", "glucose-meter-sequence-reset.jsonl",
            "uds-scale-registration-and-consent.jsonl", "blood-pressure-current-time-handshake.jsonl",
            "pulse-oximeter-history.jsonl", "glucose-meter-interrupted-download.jsonl",
            "qn-scale-session.jsonl", "renpho-es-wbe28-consent.jsonl", "omron-hem-7322t-memory-map.jsonl",
        ]
        var paths = PackageRoot.recordingNames.filter { !$0.hasPrefix("heart-rate") && !newer.contains($0) }
            .map { PackageRoot.recordings.appendingPathComponent($0).path }
        let strap = try String(
            contentsOf: PackageRoot.recordings.appendingPathComponent("heart-rate-strap-20-minutes.jsonl"),
            encoding: .utf8
        )
        let firstMinute = directory.appendingPathComponent("heart-rate-first-minute.jsonl")
        let lines = strap.split(separator: "\n", omittingEmptySubsequences: false).prefix(70)
        try (lines.joined(separator: "\n") + "\n").write(to: firstMinute, atomically: true, encoding: .utf8)
        paths.append(firstMinute.path)
        return paths
    }

    @Test func openingAnOldStoreSaysItIsUpgradingOnceAndHowMuch() throws {
        let (directory, path) = try Self.copyFixture()
        defer { try? FileManager.default.removeItem(at: directory) }
        let messages = CollectedMessages()
        let logger = Logger(label: "test") { _ in CollectingLogHandler(messages: messages) }
        _ = try CareStore(path: path, bridgeZone: Self.zone, logger: logger)
        let first = messages.all.filter { $0.level >= .warning }
        #expect(first.count == 1)
        #expect(first.first?.text.contains("converting 204 samples to the compact layout, ids in time order") == true)
        #expect(messages.all.contains { $0.text == "store upgraded" })
        let before = messages.all.count
        _ = try CareStore(path: path, bridgeZone: Self.zone, logger: logger)
        #expect(messages.all.dropFirst(before).allSatisfy { $0.level < .warning && $0.text != "store upgraded" })
    }

    @Test func oldStoreGetsTimeOrderedIdsEverywhereAndKeepsItsContent() async throws {
        let (directory, path) = try Self.copyFixture()
        defer { try? FileManager.default.removeItem(at: directory) }
        let old = try await DatabaseQueue(path: path).read { db in try Snapshot(db) }
        #expect(old.migrations == ["v1", "v2-outbox"])
        #expect(old.ids.count == 204)
        #expect(old.deleted.count == 1)
        #expect(old.values.count == 84)
        #expect(old.outbox.count == 204)

        let store = try CareStore(path: path, bridgeZone: Self.zone, logger: Self.logger)
        #expect(
            try await store.appliedMigrations() == StoreMigrations.all
        )
        let new = try await store.databaseWriter.read { db in try Snapshot(db) }

        // Every row kept (tombstones too), each id now the time-ordered id of the rebuilt sample (paired by the
        // id each sample had before: the compact layout keeps no rowids).
        let everything = try await store.samples(matching: SampleQuery(includesDeleted: true, quarantine: .included))
        let byOldID = Dictionary(uniqueKeysWithValues: everything.map { ($0.sample.legacyID, $0.id) })
        #expect(new.ids.count == old.ids.count)
        #expect(Set(new.ids.values) == Set(everything.map(\.id)))
        #expect(
            Set(new.deleted.compactMap { new.ids[$0] })
                == Set(old.deleted.compactMap { old.ids[$0].flatMap { byOldID[$0] } })
        )
        var renamed: [String: String] = [:]
        for (_, oldID) in old.ids {
            let newID = try #require(byOldID[oldID])
            let stored = try #require(try await store.sample(id: newID))
            #expect(stored.sample.id == newID)
            #expect(stored.sample.idFromKey() == newID)
            #expect(stored.sample.legacyID == oldID)
            #expect(newID != oldID)
            let prefix = withUnsafeBytes(of: newID.uuid) { Array($0.prefix(6)) }
            #expect(prefix.reduce(Int64(0)) { $0 << 8 | Int64($1) } == stored.sample.idMilliseconds)
            renamed[oldID.uuidString.lowercased()] = newID.uuidString.lowercased()
        }
        #expect(try await store.sample(id: try #require(old.ids.values.first)) == nil)

        // Outcome values: same values in the same places, naming the same samples by their new ids.
        #expect(Set(new.values.keys) == Set(old.values.keys))
        for (key, (value, sampleID)) in old.values {
            let migrated = try #require(new.values[key])
            #expect(migrated.0 == value)
            #expect(migrated.1 == sampleID.flatMap { renamed[$0] })
            #expect(migrated.1 != nil || sampleID == nil)
        }

        // Outbox: the same entries, each still finding its sample.
        #expect(Set(new.outbox.keys) == Set(old.outbox.keys))
        for (sequence, oldID) in old.outbox {
            #expect(new.outbox[sequence]?.uuidString.lowercased() == renamed[oldID.uuidString.lowercased()])
        }
        let pending = try await store.pendingOutbox(limit: 1000)
        #expect(pending.count == 204)
        #expect(pending.allSatisfy { $0.sample != nil && $0.sample?.id == $0.sampleID })

        // Events read back with the new ids.
        let events = try await store.events(
            matching: EventQuery(
                from: Date(timeIntervalSince1970: 1_793_487_600),
                to: Date(timeIntervalSince1970: 1_796_079_600)
            )
        )
        let eventSampleIDs = events.flatMap { $0.outcome?.values.compactMap(\.sampleID) ?? [] }
        #expect(eventSampleIDs.count == 84)
        for id in eventSampleIDs { #expect(try await store.sample(id: id) != nil) }
    }

    /// `v6-sample-safety` on the old file: every sample stored before was a plain usable number and stays one (no
    /// comparator, not quarantined), every outcome value keeps its value, and LO/HI and quarantine work after it.
    @Test func theSafetyMigrationKeepsOldSamplesUsableAndAddsQuarantine() async throws {
        let (directory, path) = try Self.copyFixture()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try CareStore(path: path, bridgeZone: Self.zone, logger: Self.logger)
        let all = try await store.samples(matching: SampleQuery(quarantine: .included))
        #expect(all.count == 203)  // 204 rows, one of them a tombstone
        #expect(all.allSatisfy { $0.sample.comparator == nil && !$0.sample.isQuarantined && $0.releaseReason == nil })
        #expect(try await store.samples(matching: SampleQuery(quarantine: .only)).isEmpty)
        let events = try await store.events(
            matching: EventQuery(
                from: Date(timeIntervalSince1970: 1_793_487_600),
                to: Date(timeIntervalSince1970: 1_796_079_600)
            )
        )
        let values = events.flatMap { $0.outcome?.values ?? [] }
        #expect(values.count == 84 && values.allSatisfy { $0.comparator == nil })

        var implausible = try ManualReading.sample(
            type: .heartRate,
            value: 70,
            unit: "bpm",
            at: Date(timeIntervalSince1970: 1_795_000_000),
            receivedAt: Date(timeIntervalSince1970: 1_795_000_000)
        )
        implausible.value = 179_200_000
        implausible.quarantineReason = "implausible heart rate"
        #expect(try await store.recordSample(implausible).quarantined == 1)
        #expect(try await store.samples(matching: SampleQuery(quarantine: .only)).map(\.id) == [implausible.id])
    }

    @Test func replayingTheOldSessionsIntoTheMigratedStoreAddsNothing() async throws {
        let (directory, path) = try Self.copyFixture()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try CareStore(path: path, bridgeZone: Self.zone, logger: Self.logger)
        let before = try await store.databaseWriter.read { db in try Snapshot(db) }
        let catalog = DeviceProfileLoader.load(directories: [PackageRoot.devices]).catalog
        var samples = 0
        for recording in try Self.recordings(in: directory) {
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
            #expect(await sink.duplicates == report.samples, "\(recording)")
        }
        #expect(samples == 202)  // every stored device sample, the deleted one included
        let manual = [
            try ManualReading.sample(
                type: .bodyMass,
                value: 72.4,
                unit: "kg",
                at: try Timestamp.parse("2026-11-19T07:30:00", in: Self.zone),
                receivedAt: Date()
            ),
            try ManualReading.sample(
                type: .bodyTemperature,
                value: 98.6,
                unit: "°F",
                at: try Timestamp.parse("2026-11-19T21:00:00", in: Self.zone),
                note: "after waking",
                receivedAt: Date()
            ),
        ]
        let report = try await store.recordSamples(manual)
        #expect(report.inserted == 0)
        #expect(report.duplicates == 2)

        let after = try await store.databaseWriter.read { db in try Snapshot(db) }
        #expect(after.ids == before.ids)
        #expect(after.deleted == before.deleted)
        #expect(after.outbox == before.outbox)
        #expect(after.values.count == before.values.count)
        for (key, value) in after.values {
            let earlier = try #require(before.values[key])
            #expect(earlier.0 == value.0 && earlier.1 == value.1)
        }
    }

    @Test func samplesStoredAfterTheMigrationStillReachTheOutbox() async throws {
        let (directory, path) = try Self.copyFixture()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try CareStore(path: path, bridgeZone: Self.zone, logger: Self.logger)
        let sample = try ManualReading.sample(
            type: .bodyMass,
            value: 71.9,
            unit: "kg",
            at: try Timestamp.parse("2026-11-21T07:30:00", in: Self.zone),
            receivedAt: Date()
        )
        #expect(try await store.recordSample(sample).inserted == 1)
        let pending = try await store.pendingOutbox(limit: 1000)
        #expect(pending.count == 205)
        #expect(pending.last?.sampleID == sample.id)
        // Disabling the last channel removes the trigger; enabling it again brings it back.
        try await store.disableOutbox()
        let later = try ManualReading.sample(
            type: .bodyMass,
            value: 71.8,
            unit: "kg",
            at: try Timestamp.parse("2026-11-22T07:30:00", in: Self.zone),
            receivedAt: Date()
        )
        try await store.recordSample(later)
        #expect(try await store.outboxCount() == 0)
        try await store.enableOutbox()
        let latest = try ManualReading.sample(
            type: .bodyMass,
            value: 71.7,
            unit: "kg",
            at: try Timestamp.parse("2026-11-23T07:30:00", in: Self.zone),
            receivedAt: Date()
        )
        try await store.recordSample(latest)
        #expect(try await store.pendingOutbox(limit: 10).map(\.sampleID) == [latest.id])
    }
}

/// Log messages a test can read back.
final class CollectedMessages: @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [(level: Logger.Level, text: String)] = []

    var all: [(level: Logger.Level, text: String)] { lock.withLock { messages } }

    func append(_ level: Logger.Level, _ text: String) {
        lock.withLock { messages.append((level, text)) }
    }
}

/// Keeps every message in a ``CollectedMessages``.
struct CollectingLogHandler: LogHandler {
    let messages: CollectedMessages
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        messages.append(event.level, event.message.description)
    }
}
