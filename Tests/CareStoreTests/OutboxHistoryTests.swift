import BridgeCore
import Foundation
import GRDB
import TestSupport
import Testing

@testable import CareStore

/// The history a channel is given when first enabled with `includingStored` (issue #27): queued in SQL without
/// reading the samples, and exactly what reading them all and sorting them in memory queued before.
@Suite struct OutboxHistoryTests {
    static let morning = OutboxTests.morning

    /// The samples of ``store(_:)``, named for what each tests.
    struct History {
        /// Stored last but recorded first (an earlier recording time).
        var recordedFirst: QuantitySample
        /// Measured an hour before the rest, recorded with them.
        var glucoseEarlier: QuantitySample
        /// Two weights with the same start and recording time (ties broken by the id's tail) and a temperature
        /// with that start too (after them: its type code is later).
        var sameStart: [QuantitySample]
        var temperature: QuantitySample
        /// Two straps' heart rate at the same second.
        var heartRates: [QuantitySample]
        var deleted: QuantitySample
        var quarantined: QuantitySample
    }

    /// A store with mixed types, equal recording times and starts, a deleted sample and a quarantined one.
    static func store(_ fixture: StoreFixture) async throws -> History {
        let t = Self.morning
        func weight(_ kilograms: Double, _ offset: Double, payload: UInt8) -> QuantitySample {
            StoreFixture.weight(kilograms, at: t.addingTimeInterval(offset), payload: payload)
        }
        func heartRate(_ bpm: Double, device: String) -> QuantitySample {
            QuantitySample(
                type: .heartRate,
                value: bpm,
                unit: .perMinute,
                start: t.addingTimeInterval(30),
                source: SampleSource(kind: .device, decoder: "heart-rate", device: DeviceIdentity(address: device)),
                receivedAt: t.addingTimeInterval(30),
                rawPayload: [0x00, UInt8(bpm)]
            )
        }
        let sameStart = [weight(70, 0, payload: 1), weight(71, 0, payload: 2)]
        let temperature = weight(0, 0, payload: 3).changed {
            $0.type = .bodyTemperature
            $0.value = 37.2
            $0.unit = .celsius
            $0.transmittedValue = 37.2
            $0.transmittedUnit = .celsius
        }
        let glucoseEarlier = OutboxTests.glucose(97, at: t.addingTimeInterval(-3600))
        let deleted = weight(72, 60, payload: 4)
        var quarantined = weight(3, 120, payload: 5)
        quarantined.value = 0.05
        quarantined.quarantineReason = "implausible body mass 0.05 kg: outside 0.2–650 kg"
        let heartRates = [heartRate(61, device: "02:00:00:00:00:0A"), heartRate(62, device: "02:00:00:00:00:0B")]
        let recordedFirst = weight(73, 600, payload: 6)

        // Two calls at the same recording time (one batch of origins), then one recorded earlier, then one later.
        try await fixture.store.recordSamples(
            [sameStart[0], temperature, glucoseEarlier, deleted],
            recordedAt: t.addingTimeInterval(100)
        )
        try await fixture.store.recordSamples(heartRates + [sameStart[1]], recordedAt: t.addingTimeInterval(100))
        try await fixture.store.recordSamples([recordedFirst], recordedAt: t.addingTimeInterval(50))
        try await fixture.store.recordSamples([quarantined], recordedAt: t.addingTimeInterval(200))
        try await fixture.store.deleteSample(id: deleted.id)
        return History(
            recordedFirst: recordedFirst,
            glucoseEarlier: glucoseEarlier,
            sameStart: sameStart,
            temperature: temperature,
            heartRates: heartRates,
            deleted: deleted,
            quarantined: quarantined
        )
    }

    /// What the store queued for `channel`: each entry's sample id and the milliseconds of its `enqueuedAt`, in
    /// delivery order.
    static func queued(_ store: CareStore, channel: String) async throws -> [Entry] {
        try await store.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT sampleID, enqueuedAt FROM outboxEntry WHERE channel = ? ORDER BY sequence",
                arguments: [channel]
            )
            .map { row in
                Entry(id: OutboxSchema.sampleUUID(row["sampleID"]), milliseconds: Self.milliseconds(row["enqueuedAt"]))
            }
        }
    }

    struct Entry: Equatable, Sendable, CustomStringConvertible {
        var id: UUID?
        var milliseconds: Int64
        var description: String { "\(id?.uuidString ?? "nil")@\(milliseconds)" }
    }

    static func milliseconds(_ seconds: Double) -> Int64 { Int64((seconds * 1000).rounded()) }

    /// What enabling queued before issue #27, kept here as the reference: every live sample decoded, filtered by
    /// type and sorted in memory by recording time, then start (a stable sort over the table's order).
    static func decodedAndSorted(
        _ store: CareStore,
        types: Set<QuantityType>?,
        where condition: String = "1"
    ) async throws -> [Entry] {
        try await store.read { db in
            var reader = try SampleRowReader(db)
            return try reader.samples(
                db,
                where: """
                    r.type IN (SELECT code FROM quantityType) \
                    AND (r.state IS NULL OR r.state & \(SampleTable.deletedBit) = 0) AND (\(condition))
                    """,
                arguments: []
            )
            .filter { types?.contains($0.sample.type) ?? true }
            .sorted { ($0.recordedAt, $0.sample.start) < ($1.recordedAt, $1.sample.start) }
            .map { Entry(id: $0.id, milliseconds: Self.milliseconds($0.recordedAt.timeIntervalSince1970)) }
        }
    }

    /// `ids` in the order of their last 10 bytes (the tail the table is keyed by).
    static func byTail(_ ids: [UUID]) -> [UUID] {
        ids.sorted { $0.data.suffix(10).lexicographicallyPrecedes($1.data.suffix(10)) }
    }

    @Test func theHistoryIsWhatDecodingAndSortingEverySampleQueuedInTheSameOrder() async throws {
        let fixture = try StoreFixture()
        let history = try await Self.store(fixture)
        let everything = try await Self.decodedAndSorted(fixture.store, types: nil)
        let weightsAndGlucose = try await Self.decodedAndSorted(fixture.store, types: [.bodyMass, .bloodGlucose])
        try await fixture.store.enableOutbox(channel: "all", includingStored: true)
        try await fixture.store.enableOutbox(
            channel: "some",
            includingStored: true,
            sampleTypes: [.bodyMass, .bloodGlucose]
        )

        // Written out: recorded at +50, then the +100 batch by start (ties by type code, then id tail), then +200;
        // the deleted weight nowhere, the quarantined one queued.
        let t = Self.milliseconds(Self.morning.timeIntervalSince1970)
        let all =
            [history.recordedFirst.id, history.glucoseEarlier.id] + Self.byTail(history.sameStart.map(\.id))
            + [history.temperature.id] + Self.byTail(history.heartRates.map(\.id)) + [history.quarantined.id]
        let times = [t + 50_000] + Array(repeating: t + 100_000, count: 6) + [t + 200_000]
        let expected = zip(all, times).map { Entry(id: $0, milliseconds: $1) }
        #expect(try await Self.queued(fixture.store, channel: "all") == expected)
        #expect(everything == expected)
        let some = expected.filter { entry in
            ![history.temperature.id, history.heartRates[0].id, history.heartRates[1].id].contains(entry.id)
        }
        #expect(try await Self.queued(fixture.store, channel: "some") == some)
        #expect(weightsAndGlucose == some)

        // The entries read back as the samples stored, the quarantined one with its reason.
        let pending = try await fixture.store.pendingOutbox(channel: "all", limit: 100)
        #expect(pending.map(\.sampleID) == all)
        #expect(pending.compactMap(\.sample?.sample.id) == all)
        #expect(pending.last?.sample?.sample.quarantineReason == history.quarantined.quarantineReason)
        #expect(!pending.contains { $0.sampleID == history.deleted.id })
    }

    @Test func enablingAgainQueuesNoHistoryAndAnEntryAlreadyQueuedIsKept() async throws {
        let fixture = try StoreFixture()
        _ = try await Self.store(fixture)
        try await fixture.store.enableOutbox(channel: "all", includingStored: true)
        let first = try await Self.queued(fixture.store, channel: "all")
        try await fixture.store.clearOutbox(channel: "all")
        try await fixture.store.enableOutbox(channel: "all", includingStored: true)
        #expect(try await Self.queued(fixture.store, channel: "all").isEmpty)
        #expect(first.count == 8)
    }

    @Test func theHubIsGivenItsPlanFirstThenTheSamplesThenTheOutcomes() async throws {
        let fixture = try StoreFixture()
        try await fixture.store.addTask(StoreFixture.weighIn())
        let history = try await Self.store(fixture)
        let samples = try await Self.decodedAndSorted(fixture.store, types: nil)
        try await fixture.store.enableOutbox(channel: CareStore.hubOutboxChannel, includingStored: true)
        let keys = try await fixture.store.read { db in
            try DatabaseValue.fetchAll(
                db,
                sql: "SELECT sampleID FROM outboxEntry WHERE channel = ? ORDER BY sequence",
                arguments: [CareStore.hubOutboxChannel]
            )
        }
        let text = keys.map { String.fromDatabaseValue($0) }
        #expect(text.first??.hasPrefix("task/") == true)
        #expect(text.last??.hasPrefix("outcome/") == true)
        let queuedSamples = try await Self.queued(fixture.store, channel: CareStore.hubOutboxChannel)
            .filter { $0.id != nil }
        #expect(queuedSamples == samples)
        #expect(queuedSamples.last?.id == history.quarantined.id)
    }

    @Test func aStoredSampleOfATypeThisReleaseDoesNotKnowFailsTheEnableAndQueuesNothing() async throws {
        let fixture = try StoreFixture()
        _ = try await Self.store(fixture)
        try await fixture.store.write { db in
            try db.execute(sql: "UPDATE quantityType SET name = 'futureType' WHERE name = 'heartRate'")
        }
        await #expect {
            try await fixture.store.enableOutbox(channel: "all", includingStored: true)
        } throws: { error in
            (error as? CareStoreError)?.code == .corruptRow
                && (error as? CareStoreError)?.message.contains("futureType") == true
        }
        #expect(try await fixture.store.outboxSummary(channel: "all").isEnabled == false)
        #expect(try await fixture.store.outboxCount(channel: "all") == 0)
    }

    @Test func theQuarantineMigrationQueuesTheLiveQuarantinedSamplesAsTheFirstEnableDoes() async throws {
        let fixture = try StoreFixture()
        let history = try await Self.store(fixture)
        var heldEarlier = StoreFixture.weight(1, at: Self.morning.addingTimeInterval(300), payload: 7)
        heldEarlier.quarantineReason = "implausible"
        try await fixture.store.recordSamples([heldEarlier], recordedAt: Self.morning.addingTimeInterval(40))
        let expected = try await Self.decodedAndSorted(
            fixture.store,
            types: nil,
            where: "r.state IS NOT NULL AND r.state & \(SampleTable.quarantinedBit) != 0"
        )
        #expect(expected.map(\.id) == [heldEarlier.id, history.quarantined.id])
        // A store whose hub channel was enabled (and emptied) before `v23-hub-quarantine` ran.
        try await fixture.store.enableOutbox(channel: CareStore.hubOutboxChannel)
        try await fixture.store.write { db in
            try db.execute(
                sql: "DELETE FROM grdb_migrations WHERE identifier = ?",
                arguments: [HubQuarantineSchema.migrationName]
            )
        }
        let reopened = try CareStore(
            path: fixture.directory.path("care/store.sqlite"),
            bridgeZone: StoreFixture.berlin,
            logger: .quiet
        )
        #expect(try await Self.queued(reopened, channel: CareStore.hubOutboxChannel) == expected)
    }
}
