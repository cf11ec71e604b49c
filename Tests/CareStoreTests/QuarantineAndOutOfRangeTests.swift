import BridgeCore
import CarePlan
import CareStore
import Foundation
import Testing

/// The store keeps quarantined samples without using them, and lets LO/HI samples complete events with their
/// comparator, sorted below/above every number.
@Suite struct QuarantineAndOutOfRangeTests {
    typealias F = StoreFixture

    /// A daily glucose check, all day in Berlin from 2026-11-01.
    static func glucoseCheck(_ aggregation: Aggregation) -> CareTask {
        CareTask(
            id: "glucose",
            title: "Check blood glucose",
            kind: .assessment,
            schedule: .daily(
                hour: 0,
                start: WallClockTime(year: 2026, month: 11, day: 1),
                duration: .allDay,
                timeZone: .fixed("Europe/Berlin")
            ),
            linkage: SampleLinkage(type: .bloodGlucose, unit: .milligramPerDecilitre, aggregation: aggregation)
        )
    }

    static func glucose(
        _ value: Double,
        at date: Date,
        comparator: ValueComparator? = nil,
        quarantine: String? = nil,
        payload: UInt8
    ) -> QuantitySample {
        QuantitySample(
            type: .bloodGlucose,
            value: value,
            unit: .milligramPerDecilitre,
            start: date,
            source: SampleSource(
                kind: .device,
                decoder: "glucose-measurement",
                device: DeviceIdentity(address: "C8:47:8C:00:00:09")
            ),
            receivedAt: date.addingTimeInterval(5),
            rawPayload: [0x02, payload],
            comparator: comparator,
            quarantineReason: quarantine
        )
    }

    func day(_ store: CareStore, task: String) async throws -> CareEvent? {
        try await store.events(
            matching: EventQuery(from: F.berlinTime(2026, 11, 10), to: F.berlinTime(2026, 11, 11), taskIDs: [task])
        ).first { $0.start >= F.berlinTime(2026, 11, 10) }
    }

    @Test func aLowGlucoseCompletesItsEventWithTheComparator() async throws {
        let fixture = try F()
        try await fixture.store.addTask(Self.glucoseCheck(.first))
        let low = Self.glucose(20, at: F.berlinTime(2026, 11, 10, 3, 12), comparator: .lessThan, payload: 1)
        let report = try await fixture.store.recordSample(low)
        #expect(report.inserted == 1 && report.eventsUpdated == 1)
        let value = try #require(try await day(fixture.store, task: "glucose")?.outcome?.values.first)
        #expect(value.value == 20)
        #expect(value.comparator == .lessThan)
        let stored = try #require(try await fixture.store.sample(id: low.id))
        #expect(stored.sample.comparator == .lessThan)
    }

    @Test func aLowWithAnUnknownLimitIsStoredAsMinusInfinity() async throws {
        let fixture = try F()
        try await fixture.store.addTask(Self.glucoseCheck(.each))
        let low = Self.glucose(-.infinity, at: F.berlinTime(2026, 11, 10, 3, 12), comparator: .lessThan, payload: 2)
        try await fixture.store.recordSample(low)
        let stored = try #require(try await fixture.store.sample(id: low.id))
        #expect(stored.sample.value == -.infinity)
        let value = try #require(try await day(fixture.store, task: "glucose")?.outcome?.values.first)
        #expect(value.comparator == .lessThan && value.value == -.infinity)
    }

    @Test(arguments: [Aggregation.min, .max])
    func lowSortsBelowAndHighAboveEveryNumber(aggregation: Aggregation) async throws {
        let fixture = try F()
        try await fixture.store.addTask(Self.glucoseCheck(aggregation))
        // The limits (20 and 600) are inside the range of plain values, so only the comparator orders them right.
        let low = Self.glucose(20, at: F.berlinTime(2026, 11, 10, 3), comparator: .lessThan, payload: 1)
        let plainLow = Self.glucose(15, at: F.berlinTime(2026, 11, 10, 4), payload: 2)
        let high = Self.glucose(600, at: F.berlinTime(2026, 11, 10, 5), comparator: .greaterThan, payload: 3)
        let plainHigh = Self.glucose(650, at: F.berlinTime(2026, 11, 10, 6), payload: 4)
        // One at a time (the incremental path) and all at once (the full derivation) agree.
        for sample in [plainLow, low, plainHigh, high] { try await fixture.store.recordSample(sample) }
        let value = try #require(try await day(fixture.store, task: "glucose")?.outcome?.values.first)
        #expect(value.sampleID == (aggregation == .min ? low.id : high.id))
        #expect(value.comparator == (aggregation == .min ? .lessThan : .greaterThan))
        try await fixture.store.deleteSample(id: plainLow.id)
        let again = try #require(try await day(fixture.store, task: "glucose")?.outcome?.values.first)
        #expect(again.sampleID == value.sampleID)
    }

    @Test func meanOfLowsKeepsTheComparatorAndLowWithHighKeepsEachValue() async throws {
        let fixture = try F()
        try await fixture.store.addTask(Self.glucoseCheck(.mean))
        try await fixture.store.recordSample(Self.glucose(100, at: F.berlinTime(2026, 11, 10, 3), payload: 1))
        try await fixture.store.recordSample(
            Self.glucose(20, at: F.berlinTime(2026, 11, 10, 4), comparator: .lessThan, payload: 2)
        )
        var values = try #require(try await day(fixture.store, task: "glucose")?.outcome?.values)
        #expect(values.map(\.value) == [60])
        #expect(values.map(\.comparator) == [.lessThan])
        try await fixture.store.recordSample(
            Self.glucose(600, at: F.berlinTime(2026, 11, 10, 5), comparator: .greaterThan, payload: 3)
        )
        values = try #require(try await day(fixture.store, task: "glucose")?.outcome?.values)
        #expect(values.map(\.comparator) == [nil, .lessThan, .greaterThan])
    }

    @Test func aQuarantinedSampleIsKeptButCompletesNothingUntilReleased() async throws {
        let fixture = try F()
        try await fixture.store.addTask(F.weighIn())
        var parcel = F.weight(3, at: F.berlinTime(2026, 11, 10, 7, 30))
        parcel.value = 0.05
        parcel.quarantineReason = "implausible body mass 0.05 kg: outside 0.2–650 kg"
        let report = try await fixture.store.recordSample(parcel)
        #expect(report.inserted == 1 && report.quarantined == 1 && report.eventsUpdated == 0)
        #expect(try await day(fixture.store, task: "weigh-in")?.isCompleted == false)
        #expect(try await fixture.store.samples(matching: SampleQuery()).isEmpty)
        let listed = try await fixture.store.samples(matching: SampleQuery(quarantine: .only))
        #expect(listed.map(\.id) == [parcel.id])
        #expect(listed.first?.sample.quarantineReason == parcel.quarantineReason)
        #expect(listed.first?.sample.rawPayload == parcel.rawPayload)
        #expect(listed.first?.sample.source.device?.address == "C8:47:8C:00:00:01")
        #expect(try await fixture.store.quarantinedCount() == 1)

        // Storing it again changes nothing; a release needs a reason.
        #expect(try await fixture.store.recordSample(parcel).duplicates == 1)
        await #expect(throws: CareStoreError.self) {
            try await fixture.store.releaseSample(id: parcel.id, reason: "  ")
        }

        let released = try #require(try await fixture.store.releaseSample(id: parcel.id, reason: "a newborn, checked"))
        #expect(released.releaseReason == "a newborn, checked (quarantined: \(parcel.quarantineReason!))")
        #expect(try await day(fixture.store, task: "weigh-in")?.outcome?.values.map(\.value) == [0.05])
        #expect(try await fixture.store.samples(matching: SampleQuery(quarantine: .only)).isEmpty)
        #expect(try await fixture.store.sample(id: parcel.id)?.releaseReason == released.releaseReason)
        // Only quarantined samples can be released.
        #expect(try await fixture.store.releaseSample(id: parcel.id, reason: "again") == nil)
    }

    @Test func deletingAQuarantinedSampleLeavesATombstone() async throws {
        let fixture = try F()
        var bad = F.weight(72, at: F.berlinTime(2026, 11, 10, 7, 30))
        bad.quarantineReason = "device status says the value is invalid: measurement unsuccessful"
        try await fixture.store.recordSample(bad)
        #expect(try await fixture.store.deleteSample(id: bad.id))
        #expect(try await fixture.store.samples(matching: SampleQuery(quarantine: .only)).isEmpty)
        #expect(try await fixture.store.recordSample(bad).inserted == 0)
    }

    @Test func sameInstantTieGoesToTheReadingEnteredLater() async throws {
        let fixture = try F()
        try await fixture.store.addTask(F.weighIn(aggregation: .last))
        let at = F.berlinTime(2026, 11, 10, 7, 30)
        let typo = try ManualReading.sample(type: .bodyMass, value: 27.4, unit: "kg", at: at, receivedAt: at)
        let right = try ManualReading.sample(type: .bodyMass, value: 72.4, unit: "kg", at: at, receivedAt: at)
        try await fixture.store.recordSample(typo, recordedAt: at.addingTimeInterval(60))
        try await fixture.store.recordSample(right, recordedAt: at.addingTimeInterval(120))
        #expect(try await day(fixture.store, task: "weigh-in")?.outcome?.values.map(\.value) == [72.4])
        // Whatever the ids: entered in the other order, the later entry wins again.
        let other = try F()
        try await other.store.addTask(F.weighIn(aggregation: .last))
        try await other.store.recordSample(right, recordedAt: at.addingTimeInterval(60))
        try await other.store.recordSample(typo, recordedAt: at.addingTimeInterval(120))
        #expect(try await day(other.store, task: "weigh-in")?.outcome?.values.map(\.value) == [27.4])
    }
}

/// Corrections: a mistyped manual reading is replaced in one step, and its retraction is queued.
@Suite struct ManualCorrectionTests {
    typealias F = StoreFixture

    func day(_ store: CareStore) async throws -> CareEvent? {
        try await store.events(
            matching: EventQuery(
                from: F.berlinTime(2026, 11, 10),
                to: F.berlinTime(2026, 11, 11),
                taskIDs: ["weigh-in"]
            )
        ).first { $0.start >= F.berlinTime(2026, 11, 10) }
    }

    @Test func replacingATypoRederivesTheEventAndLeavesATombstone() async throws {
        let fixture = try F()
        try await fixture.store.addTask(F.weighIn(aggregation: .first))
        try await fixture.store.enableOutbox()
        let at = F.berlinTime(2026, 11, 10, 7, 30)
        let typo = try ManualReading.sample(type: .bodyMass, value: 27.4, unit: "kg", at: at, receivedAt: at)
        try await fixture.store.recordSample(typo, recordedAt: at)
        #expect(try await day(fixture.store)?.outcome?.values.map(\.value) == [27.4])
        try await fixture.store.removeOutboxEntries(try await fixture.store.pendingOutbox(limit: 10).map(\.sequence))

        let right = try ManualReading.sample(type: .bodyMass, value: 72.4, unit: "kg", at: at, receivedAt: at)
        let report = try await fixture.store.replaceManualSample(
            id: typo.id,
            with: right,
            recordedAt: at.addingTimeInterval(60)
        )
        #expect(report.inserted == 1 && report.eventsUpdated == 1)
        #expect(try await day(fixture.store)?.outcome?.values.map(\.value) == [72.4])
        #expect(try await fixture.store.sample(id: typo.id)?.deletedDate == at.addingTimeInterval(60))
        #expect(try await fixture.store.samples(matching: SampleQuery()).map(\.id) == [right.id])
        // The typo was published: its retraction is queued (enqueued at the deletion), then the new reading.
        let pending = try await fixture.store.pendingOutbox(limit: 10)
        #expect(pending.map(\.sampleID) == [typo.id, right.id])
        #expect(pending.first?.enqueuedAt == pending.first?.sample?.deletedDate)
        // Re-importing the typo does not bring it back.
        #expect(try await fixture.store.recordSample(typo).inserted == 0)
    }

    @Test func onlyLiveManualReadingsAreReplaced() async throws {
        let fixture = try F()
        let at = F.berlinTime(2026, 11, 10, 7, 30)
        let scale = F.weight(72.4, at: at)
        try await fixture.store.recordSample(scale)
        let manual = try ManualReading.sample(type: .bodyMass, value: 72.5, unit: "kg", at: at, receivedAt: at)
        await #expect(throws: CareStoreError.self) {
            try await fixture.store.replaceManualSample(id: scale.id, with: manual)
        }
        await #expect(throws: CareStoreError.self) {
            try await fixture.store.replaceManualSample(id: UUID(), with: manual)
        }
        try await fixture.store.recordSample(manual)
        await #expect(throws: CareStoreError.self) {
            try await fixture.store.replaceManualSample(id: manual.id, with: manual)
        }
        await #expect(throws: CareStoreError.self) {
            try await fixture.store.replaceManualSample(id: manual.id, with: scale)
        }
        #expect(try await fixture.store.samples(matching: SampleQuery()).count == 2)
    }

    @Test func aReadingOfAnotherTypeDoesNotReplaceOneNamingBothTypes() async throws {
        let fixture = try F()
        let at = F.berlinTime(2026, 11, 10, 7, 30)
        let weight = try ManualReading.sample(type: .bodyMass, value: 72.4, unit: "kg", at: at, receivedAt: at)
        try await fixture.store.recordSample(weight)
        let fever = try ManualReading.sample(type: .bodyTemperature, value: 37.2, unit: "°C", at: at, receivedAt: at)
        let error = await #expect(throws: CareStoreError.self) {
            try await fixture.store.replaceManualSample(id: weight.id, with: fever)
        }
        #expect(error?.code == .invalidSample)
        #expect(error?.message.contains("bodyMass") == true && error?.message.contains("bodyTemperature") == true)
        #expect(try await fixture.store.samples(matching: SampleQuery()).map(\.id) == [weight.id])
    }

    @Test func deletingAnUnpublishedSampleQueuesNoRetraction() async throws {
        let fixture = try F()
        try await fixture.store.enableOutbox()
        let sample = F.weight(72.4, at: F.berlinTime(2026, 11, 10, 7, 30))
        try await fixture.store.recordSample(sample, recordedAt: F.berlinTime(2026, 11, 10, 8))
        try await fixture.store.deleteSample(id: sample.id, at: F.berlinTime(2026, 11, 10, 9))
        let pending = try await fixture.store.pendingOutbox(limit: 10)
        #expect(pending.count == 1)
        #expect(try #require(pending.first?.enqueuedAt) < (try #require(pending.first?.sample?.deletedDate)))
    }
}
