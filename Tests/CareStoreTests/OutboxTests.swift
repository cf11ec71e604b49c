import BridgeCore
import CareStore
import Foundation
import GRDB
import TestSupport
import Testing

@Suite struct OutboxTests {
    static let morning = Date(timeIntervalSince1970: 1_800_000_000)

    static func weights(_ count: Int, from start: Date = morning) -> [QuantitySample] {
        (0..<count).map { index in
            StoreFixture.weight(
                70 + Double(index) / 10,
                at: start.addingTimeInterval(Double(index) * 60),
                payload: UInt8(index)
            )
        }
    }

    @Test func queuesNothingUntilEnabled() async throws {
        let fixture = try StoreFixture()
        try await fixture.store.recordSamples(Self.weights(3))
        #expect(try await fixture.store.outboxCount() == 0)
        #expect(try await fixture.store.outboxSummary().isEnabled == false)
    }

    @Test func queuesEachNewSampleOnceInStoringOrder() async throws {
        let fixture = try StoreFixture()
        try await fixture.store.enableOutbox()
        let samples = Self.weights(5)
        let report = try await fixture.store.recordSamples(Array(samples.reversed()))
        // Storing the same samples again stores and queues nothing.
        let again = try await fixture.store.recordSamples(samples)
        #expect(again.inserted == 0)
        let entries = try await fixture.store.pendingOutbox(limit: 100)
        #expect(entries.count == report.inserted)
        #expect(entries.map(\.sampleID) == samples.reversed().map(\.id))
        #expect(entries.map(\.sequence) == entries.map(\.sequence).sorted())
        #expect(entries.compactMap(\.sample?.sample) == samples.reversed())
        #expect(
            try await fixture.store.pendingOutbox(limit: 2).map(\.sampleID) == Array(entries.prefix(2).map(\.sampleID))
        )
    }

    @Test func aChannelThatTakesSomeTypesIsQueuedOnlyThoseOnEveryPath() async throws {
        let fixture = try StoreFixture()
        let weights = Self.weights(2)
        let earlierGlucose = Self.glucose(97, at: Self.morning.addingTimeInterval(-3600))
        try await fixture.store.recordSamples([weights[0], earlierGlucose])
        // The history queued on first enable is filtered too; an unfiltered channel beside it takes everything.
        try await fixture.store.enableOutbox(
            channel: "glucose-only",
            includingStored: true,
            sampleTypes: [.bloodGlucose]
        )
        try await fixture.store.enableOutbox(channel: "all", includingStored: true)
        let glucose = Self.glucose(110, at: Self.morning.addingTimeInterval(60))
        try await fixture.store.recordSamples([weights[1], glucose])
        #expect(
            try await fixture.store.pendingOutbox(channel: "glucose-only", limit: 10).map(\.sampleID)
                == [earlierGlucose.id, glucose.id]
        )
        #expect(try await fixture.store.outboxCount(channel: "all") == 4)
        // A retraction goes where the reading would have gone.
        try await fixture.store.deleteSample(id: weights[1].id)
        try await fixture.store.deleteSample(id: glucose.id)
        #expect(try await fixture.store.outboxCount(channel: "glucose-only") == 2)
        #expect(try await fixture.store.outboxCount(channel: "all") == 4)
        // Enabling again with every type widens what is queued from now on.
        try await fixture.store.enableOutbox(channel: "glucose-only")
        try await fixture.store.recordSample(Self.weights(1, from: Self.morning.addingTimeInterval(7200))[0])
        #expect(try await fixture.store.outboxCount(channel: "glucose-only") == 3)
    }

    static func glucose(_ milligramsPerDecilitre: Double, at date: Date) -> QuantitySample {
        QuantitySample(
            type: .bloodGlucose,
            value: milligramsPerDecilitre,
            unit: .milligramPerDecilitre,
            start: date,
            source: SampleSource(
                kind: .device,
                decoder: "glucose-measurement",
                device: DeviceIdentity(address: "C8:47:8C:00:00:02")
            ),
            receivedAt: date.addingTimeInterval(5),
            rawPayload: [0x01, UInt8(Int(milligramsPerDecilitre) & 0xFF)]
        )
    }

    @Test func sampleAndEntryCommitTogetherOrNotAtAll() async throws {
        let fixture = try StoreFixture()
        try await fixture.store.enableOutbox()
        let samples = Self.weights(3)
        try await fixture.store.recordSample(samples[0])
        // Make queueing fail for the third entry: the batch storing two more samples then fails as a whole,
        // leaving neither the samples nor their entries.
        try await fixture.store.databaseWriter.write { db in
            try db.execute(
                sql: """
                    CREATE TEMP TRIGGER failThirdEntry BEFORE INSERT ON outboxEntry
                    WHEN (SELECT COUNT(*) FROM outboxEntry) >= 2
                    BEGIN SELECT RAISE(ABORT, 'injected failure'); END
                    """
            )
        }
        await #expect(throws: CareStoreError.self) { try await fixture.store.recordSamples(Array(samples[1...])) }
        #expect(try await fixture.store.sampleCount() == 1)
        #expect(try await fixture.store.pendingOutbox(limit: 10).map(\.sampleID) == [samples[0].id])
    }

    @Test func removedEntriesAreGoneAndTheRestKeepsItsOrder() async throws {
        let fixture = try StoreFixture()
        try await fixture.store.enableOutbox()
        try await fixture.store.recordSamples(Self.weights(4))
        let entries = try await fixture.store.pendingOutbox(limit: 10)
        try await fixture.store.removeOutboxEntries(entries.prefix(2).map(\.sequence))
        #expect(try await fixture.store.pendingOutbox(limit: 10) == Array(entries.dropFirst(2)))
    }

    @Test func pendingEntriesSurviveReopeningTheStoreFile() async throws {
        let fixture = try StoreFixture()
        try await fixture.store.enableOutbox()
        let samples = Self.weights(3)
        try await fixture.store.recordSamples(samples)
        let reopened = try CareStore(
            path: fixture.directory.path("care/store.sqlite"),
            bridgeZone: StoreFixture.berlin,
            logger: .quiet
        )
        #expect(try await reopened.pendingOutbox(limit: 10).map(\.sampleID) == samples.map(\.id))
        // Queueing stays on for every later writer of the store.
        let later = StoreFixture.weight(80, at: Self.morning.addingTimeInterval(86_400), payload: 99)
        try await reopened.recordSample(later)
        #expect(try await reopened.pendingOutbox(limit: 10).last?.sampleID == later.id)
    }

    @Test func summaryCountsPerDeviceAndTypeWithTheOldestEntry() async throws {
        let fixture = try StoreFixture()
        try await fixture.store.enableOutbox(at: Self.morning)
        let weights = Self.weights(3)
        let temperature = StoreFixture.weight(0, at: Self.morning.addingTimeInterval(-3600), payload: 200).changed {
            $0.type = .bodyTemperature
            $0.value = 37.2
            $0.unit = .celsius
            $0.transmittedValue = 37.2
            $0.transmittedUnit = .celsius
            $0.source.device = DeviceIdentity(address: "02:00:00:00:00:04")
        }
        try await fixture.store.recordSamples(weights, recordedAt: Self.morning.addingTimeInterval(10))
        try await fixture.store.recordSamples([temperature], recordedAt: Self.morning.addingTimeInterval(20))
        let summary = try await fixture.store.outboxSummary()
        #expect(summary.isEnabled)
        #expect(summary.count == 4)
        #expect(summary.oldestEnqueuedAt == Self.morning.addingTimeInterval(10))
        #expect(summary.groups.map(\.type) == [.bodyMass, .bodyTemperature])
        #expect(summary.groups.map(\.count) == [3, 1])
        #expect(summary.groups.map(\.deviceKey) == ["C8:47:8C:00:00:01", "02:00:00:00:00:04"])
        #expect(summary.groups[1].oldestSampleStart == temperature.start)
    }

    @Test func clearDropsEntriesAndDisableStopsQueueing() async throws {
        let fixture = try StoreFixture()
        try await fixture.store.enableOutbox()
        try await fixture.store.recordSamples(Self.weights(2))
        #expect(try await fixture.store.clearOutbox() == 2)
        try await fixture.store.recordSamples(Self.weights(1, from: Self.morning.addingTimeInterval(86_400)))
        #expect(try await fixture.store.outboxCount() == 1)
        #expect(try await fixture.store.disableOutbox() == 1)
        try await fixture.store.recordSamples(Self.weights(1, from: Self.morning.addingTimeInterval(2 * 86_400)))
        #expect(try await fixture.store.outboxCount() == 0)
        #expect(try await fixture.store.outboxSummary().isEnabled == false)
    }
}

@Suite struct OutboxMigrationTests {
    /// A store file that only has `v1`, with `samples` in `v1`'s sample table: the `v1` schema (frozen since
    /// its release) and rows as that release wrote them, made with SQL here since the current store no longer
    /// has that layout (`"v10-compact-samples"`). The ids are already time-ordered, so the id migration keeps
    /// them.
    static func makeV1Store(at path: String, samples: [QuantitySample]) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true
        )
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                    INSERT INTO grdb_migrations VALUES ('v1');
                    CREATE TABLE task (
                        uuid TEXT PRIMARY KEY NOT NULL, id TEXT NOT NULL, versionNumber INTEGER NOT NULL,
                        previousVersionUUID TEXT REFERENCES task(uuid), title TEXT NOT NULL, instructions TEXT,
                        kind TEXT NOT NULL, groupIdentifier TEXT, tags TEXT NOT NULL, impactsAdherence BOOLEAN NOT NULL,
                        schedule TEXT NOT NULL, linkageType TEXT, linkageUnit TEXT, linkageAggregation TEXT,
                        effectiveDate DOUBLE NOT NULL, createdDate DOUBLE NOT NULL, deletedDate DOUBLE,
                        UNIQUE (id, versionNumber)
                    );
                    CREATE INDEX task_on_linkageType ON task(linkageType) WHERE linkageType IS NOT NULL;
                    CREATE TABLE device (id INTEGER PRIMARY KEY, identity TEXT NOT NULL UNIQUE);
                    CREATE TABLE sample (
                        id BLOB NOT NULL UNIQUE, type TEXT NOT NULL, value DOUBLE NOT NULL, unit TEXT NOT NULL,
                        start DOUBLE NOT NULL, "end" DOUBLE NOT NULL, transmittedValue DOUBLE NOT NULL,
                        transmittedUnit TEXT NOT NULL, sourceKind TEXT NOT NULL, characteristic TEXT, decoder TEXT,
                        deviceID INTEGER REFERENCES device(id), deviceTime TEXT, receivedAt DOUBLE NOT NULL,
                        clockOffset DOUBLE, payload BLOB NOT NULL, sampleIndex INTEGER NOT NULL, metadata TEXT,
                        recordedAt DOUBLE NOT NULL, deletedDate DOUBLE
                    );
                    CREATE INDEX sample_on_type_start ON sample(type, start);
                    CREATE TABLE outcome (
                        id INTEGER PRIMARY KEY, taskUUID TEXT NOT NULL REFERENCES task(uuid), taskID TEXT NOT NULL,
                        occurrence INTEGER NOT NULL, eventStart DOUBLE NOT NULL, eventEnd DOUBLE NOT NULL,
                        createdDate DOUBLE NOT NULL, updatedDate DOUBLE NOT NULL, valueSum DOUBLE, valueCount INTEGER,
                        UNIQUE (taskUUID, occurrence)
                    );
                    CREATE INDEX outcome_on_taskID_eventStart ON outcome(taskID, eventStart);
                    CREATE TABLE outcomeValue (
                        outcomeID INTEGER NOT NULL REFERENCES outcome(id) ON DELETE CASCADE,
                        position INTEGER NOT NULL, value DOUBLE NOT NULL, unit TEXT NOT NULL,
                        measuredAt DOUBLE NOT NULL, sampleID TEXT, recordedAt DOUBLE NOT NULL,
                        PRIMARY KEY (outcomeID, position)
                    ) WITHOUT ROWID;
                    """
            )
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            for sample in samples {
                var deviceID: Int64?
                if let device = sample.source.device {
                    let identity = String(decoding: try encoder.encode(device), as: UTF8.self)
                    try db.execute(sql: "INSERT OR IGNORE INTO device (identity) VALUES (?)", arguments: [identity])
                    deviceID = try Int64.fetchOne(
                        db,
                        sql: "SELECT id FROM device WHERE identity = ?",
                        arguments: [identity]
                    )
                }
                try db.execute(
                    sql: """
                        INSERT INTO sample (
                            id, type, value, unit, start, "end", transmittedValue, transmittedUnit, sourceKind,
                            characteristic, decoder, deviceID, deviceTime, receivedAt, clockOffset, payload,
                            sampleIndex, metadata, recordedAt
                        ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)
                        """,
                    arguments: [
                        withUnsafeBytes(of: sample.id.uuid) { Data($0) }, sample.type.rawValue, sample.value,
                        sample.unit.rawValue, sample.start.timeIntervalSince1970, sample.end.timeIntervalSince1970,
                        sample.transmittedValue, sample.transmittedUnit.rawValue, sample.source.kind.rawValue,
                        sample.source.characteristic.map { "\($0)" }, sample.source.decoder, deviceID,
                        sample.deviceTime.map { "\($0)" }, sample.receivedAt.timeIntervalSince1970, sample.clockOffset,
                        Data(sample.rawPayload), sample.index, 1_800_000_000.0,
                    ]
                )
            }
        }
        try queue.close()
    }

    @Test func v1StoreMigratesToTheOutboxKeepingItsSamplesAndQueueingNothingOld() async throws {
        let directory = try ScratchDirectory("carestore-")
        let path = directory.path("care/store.sqlite")
        let old = OutboxTests.weights(4)
        try Self.makeV1Store(at: path, samples: old)
        let v1 = try DatabaseQueue(path: path)
        #expect(
            try await v1.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") } == ["v1"]
        )
        try v1.close()

        let store = try CareStore(path: path, bridgeZone: StoreFixture.berlin, logger: .quiet)
        #expect(
            try await store.appliedMigrations() == StoreMigrations.all
        )
        #expect(try await store.sampleCount() == old.count)
        for sample in old { #expect(try await store.sample(id: sample.id)?.sample == sample) }
        #expect(try await store.outboxCount() == 0)
        try await store.enableOutbox()
        let sample = StoreFixture.weight(72, at: OutboxTests.morning.addingTimeInterval(86_400), payload: 42)
        try await store.recordSample(sample)
        #expect(try await store.pendingOutbox(limit: 10).map(\.sampleID) == [sample.id])
    }
}
