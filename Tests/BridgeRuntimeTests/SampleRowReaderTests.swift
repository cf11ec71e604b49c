import BridgeCore
import BridgeFoundation
import CarePlan
import Foundation
import GATTDecoding
import GRDB
import Logging
import Testing

@testable import CareStore

/// The row reader (``SampleRowReader``), the one decoder of the compact layout, gives every field of every stored
/// sample the same through its query path (`samples(matching:)` and its cursor) and its row path (single samples
/// and changes, with each row's key and state), and as stored: on the store file an older release wrote, once
/// converted, and on a store holding every kind of row the layout has.
@Suite struct SampleRowReaderTests {
    static let zone = TimeZone(identifier: "Europe/Berlin")!
    static let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
    static let morning = Date(timeIntervalSince1970: 1_795_158_000)

    /// Every row in (type, start, id) order, read both ways: as query results, and as rows (each row found again
    /// by its sample's id, as single-sample reads and changes find it, with its key and state).
    static func bothWays(_ store: CareStore) throws -> (reader: [StoredSample], records: [StoredSample]) {
        try store.databaseWriter.read { db in
            let order = "ORDER BY r.type, r.start, r.idTail"
            var reader = try SampleRowReader(db)
            let read = try reader.samples(db, where: "", arguments: [], suffix: order)
            let rows = try reader.rows(db, where: "", arguments: [], suffix: order)
            for row in rows {
                let found = try #require(try SampleTable.row(db, id: row.id, reader: &reader))
                #expect(found.key == row.key && found.state == row.state && found.stored == row.stored)
                #expect((row.state & SampleTable.deletedBit != 0) == (row.stored.deletedDate != nil), "\(row.id)")
                #expect((row.state & SampleTable.inboxBit != 0) == (row.stored.inboxReason != nil), "\(row.id)")
                #expect(
                    (row.state & SampleTable.quarantinedBit != 0) == (row.stored.sample.quarantineReason != nil),
                    "\(row.id)"
                )
            }
            return (read, rows.map(\.stored))
        }
    }

    /// Every field the same, the value to the bit, and the id the one the sample's key gives.
    static func expectSame(_ read: [StoredSample], _ records: [StoredSample]) {
        #expect(read.count == records.count)
        for (a, b) in zip(read, records) {
            #expect(a == b, "\(b.id)")
            #expect(a.id == b.id)
            #expect(a.sample.value.bitPattern == b.sample.value.bitPattern, "\(b.id)")
            #expect(a.sample.transmittedValue.bitPattern == b.sample.transmittedValue.bitPattern, "\(b.id)")
            #expect(a.sample.source == b.sample.source && a.sample.metadata == b.sample.metadata, "\(b.id)")
            #expect(a.sample.rawPayload == b.sample.rawPayload && a.sample.deviceTime == b.sample.deviceTime)
        }
    }

    @Test func theConvertedStoreOfAnOlderReleaseReadsTheSameBothWays() async throws {
        let (directory, path) = try CompactSampleMigrationTests.copyFixture()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try CareStore(path: path, bridgeZone: Self.zone, logger: Self.logger)
        let (read, records) = try Self.bothWays(store)
        #expect(read.count == 233)
        // What the file holds that a row keeps outside its columns (detail, metadata, device identities).
        #expect(read.filter { $0.deletedDate != nil }.count == 1)
        #expect(read.filter { $0.sample.deviceTime != nil }.count == 55)
        #expect(read.filter { $0.sample.comparator != nil }.count == 2)
        #expect(read.filter { $0.sample.source.kind == .manual }.count == 3)
        #expect(read.filter { !$0.sample.metadata.isEmpty }.count > 100)
        #expect(read.filter { $0.sample.unit != $0.sample.transmittedUnit }.count > 50)
        Self.expectSame(read, records)
        // The public query returns the same samples, in (start, id) order.
        let all = try await store.samples(matching: SampleQuery(includesDeleted: true, quarantine: .included))
        #expect(Set(all) == Set(records) && all.count == records.count)
        #expect(zip(all, all.dropFirst()).allSatisfy { $0.sample.start <= $1.sample.start })
    }

    /// A store with one of each: patients and a user slot's route, the inbox, a quarantined sample released and
    /// one still quarantined, a tombstone, a manual typo replaced, a HI without a known limit, a value in another
    /// unit, a device time with a clock offset, an end after the start, RR intervals sharing a notification,
    /// metadata, and the recording times of two batches.
    @Test func everyKindOfRowReadsTheSameBothWays() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try CareStore(
            path: directory.appendingPathComponent("store.sqlite").path,
            bridgeZone: Self.zone,
            logger: Self.logger
        )
        try await store.savePatient(Patient(id: "alice", name: "Alice"))
        try await store.savePatient(Patient(id: "bob", name: "Bob"))
        let scale = "C8:47:8C:00:00:10"
        try await store.assignDevice(scale, slot: 1, to: "alice")
        let strap = SampleSource(
            kind: .device,
            characteristic: BluetoothUUID("2A37"),
            decoder: "heart-rate-measurement",
            device: DeviceIdentity(address: "02:00:00:00:00:05", name: "Strap", profile: "heart-rate")
        )
        func scaleReading(_ kilograms: Double, slot: Int, minute: Double) -> QuantitySample {
            QuantitySample(
                type: .bodyMass,
                value: kilograms,
                unit: .kilogram,
                start: Self.morning.addingTimeInterval(minute * 60),
                source: SampleSource(
                    kind: .device,
                    decoder: "weight-measurement",
                    device: DeviceIdentity(address: scale)
                ),
                receivedAt: Self.morning.addingTimeInterval(minute * 60 + 3),
                rawPayload: [0x02, UInt8(slot), UInt8(Int(kilograms) & 0xFF)],
                metadata: ["userID": String(slot)]
            )
        }
        let notification: [UInt8] = [0x10, 72, 0x00, 0x04, 0x10, 0x04]
        let heartRate = QuantitySample(
            type: .heartRate,
            value: 72,
            unit: .perMinute,
            start: Self.morning,
            source: strap,
            rawPayload: notification,
            metadata: ["contact": "detected"]
        )
        let rr = (0..<2).map { index in
            QuantitySample(
                type: .rrInterval,
                value: 1000 + Double(index),
                unit: .millisecond,
                start: Self.morning,
                transmittedValue: 1024 + Double(index),
                transmittedUnit: HealthUnit(rawValue: "1/1024 s"),
                source: strap,
                rawPayload: notification,
                index: index,
                metadata: ["contact": "detected"]
            )
        }
        let pounds = QuantitySample(
            type: .bodyMass,
            value: 70.0,  // not what 154.3 lb converts to: kept as the value
            unit: .kilogram,
            start: Self.morning.addingTimeInterval(3600),
            end: Self.morning.addingTimeInterval(3630),
            transmittedValue: 154.3,
            transmittedUnit: .pound,
            source: SampleSource(kind: .device, decoder: "weight-measurement", device: DeviceIdentity(address: scale)),
            deviceTime: DateTime(year: 2026, month: 11, day: 20, hours: 8, minutes: 0, seconds: 0),
            receivedAt: Self.morning.addingTimeInterval(3700),
            clockOffset: 42.5,
            rawPayload: [0x03, 0x01],
            metadata: ["note": "after \"breakfast\"\nwith ü"]
        )
        let high = QuantitySample(
            type: .bloodGlucose,
            value: .infinity,
            unit: .milligramPerDecilitre,
            start: Self.morning.addingTimeInterval(7200),
            source: SampleSource(
                kind: .device,
                decoder: "glucose-measurement",
                device: DeviceIdentity(address: "AA:BB:CC:DD:EE:FF")
            ),
            rawPayload: [0x07, 0xFF],
            comparator: .greaterThan
        )
        var released = scaleReading(61.8, slot: 1, minute: 200)
        released.quarantineReason = "implausible jump"
        var quarantined = scaleReading(20.1, slot: 1, minute: 210)
        quarantined.quarantineReason = "status: invalid"
        let typo = QuantitySample(
            type: .bodyMass,
            value: 7.2,
            unit: .kilogram,
            start: Self.morning.addingTimeInterval(9000),
            source: SampleSource(kind: .manual)
        )
        let corrected = QuantitySample(
            type: .bodyMass,
            value: 72,
            unit: .kilogram,
            start: Self.morning.addingTimeInterval(9000),
            source: SampleSource(kind: .manual)
        )
        let deleted = scaleReading(61.9, slot: 1, minute: 300)
        try await store.recordSamples(
            [heartRate] + rr + [pounds, high, released, quarantined, typo, deleted]
                + [scaleReading(61.7, slot: 1, minute: 100), scaleReading(84.0, slot: 3, minute: 110)],
            recordedAt: Self.morning.addingTimeInterval(10_000)
        )
        try await store.recordSamples(
            [scaleReading(61.6, slot: 1, minute: 400)],
            recordedAt: Self.morning.addingTimeInterval(20_000)
        )
        #expect(
            try await store.releaseSample(
                id: released.id,
                reason: "checked",
                at: Self.morning.addingTimeInterval(20_001)
            )
                != nil
        )
        try await store.replaceManualSample(
            id: typo.id,
            with: corrected,
            recordedAt: Self.morning.addingTimeInterval(20_002)
        )
        #expect(try await store.deleteSample(id: deleted.id, at: Self.morning.addingTimeInterval(20_003)))

        let (read, records) = try Self.bothWays(store)
        #expect(read.count == 13)
        #expect(read.filter { $0.patientID == "alice" }.count >= 4 && read.contains { $0.inboxReason != nil })
        #expect(read.contains { $0.releaseReason != nil } && read.contains { $0.sample.quarantineReason != nil })
        #expect(read.filter { $0.deletedDate != nil }.count == 2)
        #expect(Set(read.map(\.recordedAt)).count == 3)
        Self.expectSame(read, records)
        let readPounds = try #require(read.first { $0.id == pounds.id })
        #expect(readPounds.sample == pounds && readPounds.sample.value == 70.0 && readPounds.sample.clockOffset == 42.5)
        #expect(read.first { $0.id == high.id }?.sample.value == .infinity)
        #expect(read.filter { $0.sample.rawPayload == notification }.map(\.sample.index).sorted() == [0, 0, 1])
        // Pages of three through the cursor: the same samples as one read.
        var cursor = store.sampleCursor(
            matching: SampleQuery(includesDeleted: true, quarantine: .included),
            pageSize: 3
        )
        var paged: [StoredSample] = []
        while let page = try await cursor.next() { paged += page }
        #expect(paged == (try await store.samples(matching: SampleQuery(includesDeleted: true, quarantine: .included))))
        #expect(Set(paged) == Set(records))
        // A query of one type (the reader then does not read the type column) and of two, against the records.
        for types: Set<QuantityType> in [[.bodyMass], [.heartRate], [.rrInterval], [.heartRate, .rrInterval]] {
            let queried = try await store.samples(
                matching: SampleQuery(types: types, includesDeleted: true, quarantine: .included)
            )
            let expected = records.filter { types.contains($0.sample.type) }
            #expect(!queried.isEmpty && queried.count == expected.count && Set(queried) == Set(expected), "\(types)")
        }
        try Self.expectRoomInSteps(store, records: records)
    }

    /// Reads every row of `store` with the two steps of room made small: past both steps (the array grows from
    /// the second), and a result under a quarter of the second step (copied to its own size). Each time the same
    /// samples as the records, and a read naming one type code with the type column skipped.
    static func expectRoomInSteps(_ store: CareStore, records: [StoredSample]) throws {
        try store.databaseWriter.read { db in
            let order = "ORDER BY r.type, r.start, r.idTail"
            var reader = try SampleRowReader(db)
            let grown = try reader.samples(db, where: "", arguments: [], suffix: order, reservations: (2, 5))
            Self.expectSame(grown, records)
            let trimmed = try reader.samples(db, where: "", arguments: [], suffix: order, reservations: (2, 1_000))
            Self.expectSame(trimmed, records)
            #expect(trimmed.capacity < 1_000 / 4)
            let limited = try reader.samples(
                db,
                where: "",
                arguments: [],
                suffix: order + " LIMIT 4",
                limit: 4,
                reservations: (2, 1_000)
            )
            Self.expectSame(limited, Array(records.prefix(4)))
            #expect(limited.capacity < 1_000 / 4)
            let code = try #require(try SampleTable.typeCodes(db, [QuantityType.bodyMass.rawValue]).first)
            let bodyMass = try reader.samples(
                db,
                where: "r.type = ?",
                arguments: [code],
                suffix: order,
                typeCode: code,
                reservations: (2, 5)
            )
            Self.expectSame(bodyMass, records.filter { $0.sample.type == .bodyMass })
        }
    }

    /// Payloads around the length the provenance box holds inline (7 bytes) and far past it, and none: each
    /// reads back byte for byte, both ways and through the public query.
    @Test func payloadsOfEveryLengthReadBackByteForByte() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try CareStore(
            path: directory.appendingPathComponent("store.sqlite").path,
            bridgeZone: Self.zone,
            logger: Self.logger
        )
        let source = SampleSource(
            kind: .device,
            decoder: "vendor",
            device: DeviceIdentity(address: "02:00:00:00:00:07")
        )
        let payloads = [0, 1, 4, 6, 7, 8, 24, 25, 512].map { count in
            (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ count) }
        }
        let samples = payloads.enumerated().map { offset, payload in
            QuantitySample(
                type: .heartRate,
                value: 60 + Double(offset),
                unit: .perMinute,
                start: Self.morning.addingTimeInterval(Double(offset)),
                source: source,
                rawPayload: payload
            )
        }
        try await store.recordSamples(samples, recordedAt: Self.morning.addingTimeInterval(60))
        let (read, records) = try Self.bothWays(store)
        Self.expectSame(read, records)
        #expect(read.map(\.sample.rawPayload) == payloads)
        #expect(read.map(\.sample) == samples)
        let queried = try await store.samples(matching: SampleQuery(types: [.heartRate]))
        #expect(queried.map(\.sample.rawPayload) == payloads)
    }

    /// The reader asks for the metadata column's type only when it reads 0 (what NULL reads as): a row whose
    /// metadata id really is 0 still gets that row's metadata, and a row without metadata none, as the record
    /// path reads them.
    @Test func aMetadataIdOfZeroReadsLikeAnyOther() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try CareStore(
            path: directory.appendingPathComponent("store.sqlite").path,
            bridgeZone: Self.zone,
            logger: Self.logger
        )
        let source = SampleSource(
            kind: .device,
            decoder: "vendor",
            device: DeviceIdentity(address: "02:00:00:00:00:08")
        )
        let samples = [["contact": "detected"], [:]].enumerated().map { offset, metadata in
            QuantitySample(
                type: .heartRate,
                value: 60 + Double(offset),
                unit: .perMinute,
                start: Self.morning.addingTimeInterval(Double(offset)),
                source: source,
                rawPayload: [0x10, UInt8(60 + offset)],
                metadata: metadata
            )
        }
        try await store.recordSamples(samples, recordedAt: Self.morning.addingTimeInterval(60))
        try await store.databaseWriter.write { db in
            try db.execute(sql: #"INSERT INTO sampleMetadata (id, json) VALUES (0, '{"zero":"yes"}')"#)
            try db.execute(sql: "UPDATE sampleOrigin SET metadata = 0 WHERE metadata IS NOT NULL")
        }
        let (read, records) = try Self.bothWays(store)
        Self.expectSame(read, records)
        #expect(read.map(\.sample.metadata) == [["zero": "yes"], [:]])
        let queried = try await store.samples(matching: SampleQuery(types: [.heartRate]))
        #expect(queried.map(\.sample.metadata) == [["zero": "yes"], [:]])
    }
}
