import BridgeCore
import CarePlan
import CareStore
import Foundation
import Testing

/// Outcomes kept up to date batch by batch must equal the outcome derived from all samples at once.
@Suite struct IncrementalOutcomeTests {
    typealias F = StoreFixture

    func dayOutcome(_ store: CareStore) async throws -> [OutcomeValue] {
        let events = try await store.events(
            matching: EventQuery(
                from: F.berlinTime(2026, 11, 10),
                to: F.berlinTime(2026, 11, 11),
                taskIDs: ["weigh-in"]
            )
        ).filter { $0.start >= F.berlinTime(2026, 11, 10) }
        return try #require(events.first?.outcome?.values)
    }

    /// Twelve readings of the day with values whose floating-point sum depends on the order of addition.
    func readings() -> [QuantitySample] {
        (0..<12).map { index in
            F.weight(
                70 + Double(index) * 0.1 + (index.isMultiple(of: 3) ? 1e-9 : 0.3),
                at: F.berlinTime(2026, 11, 10, 6 + index),
                payload: UInt8(index)
            )
        }
    }

    @Test(arguments: [Aggregation.mean, .sum])
    func inOrderBatchesGiveTheSameValueAsOneBatch(_ aggregation: Aggregation) async throws {
        let samples = readings()
        let batched = try F()
        try await batched.store.addTask(F.weighIn(aggregation: aggregation))
        for start in stride(from: 0, to: samples.count, by: 5) {
            try await batched.store.recordSamples(Array(samples[start..<min(start + 5, samples.count)]))
        }
        let whole = try F()
        try await whole.store.addTask(F.weighIn(aggregation: aggregation))
        try await whole.store.recordSamples(samples)

        let expectedTotal = samples.reduce(0) { $0 + $1.value }
        let expected = aggregation == .sum ? expectedTotal : expectedTotal / Double(samples.count)
        let batchedValues = try await dayOutcome(batched.store)
        #expect(batchedValues.map(\.value) == [expected])
        #expect(batchedValues.map(\.value) == (try await dayOutcome(whole.store)).map(\.value))
        #expect(batchedValues.first?.measuredAt == samples.last?.start)
        #expect(batchedValues.first?.sampleID == nil)
    }

    @Test func anEarlierSampleArrivingLaterIsCountedOnce() async throws {
        let samples = readings()
        let fixture = try F()
        try await fixture.store.addTask(F.weighIn(aggregation: .mean))
        try await fixture.store.recordSamples(Array(samples[4...]))
        try await fixture.store.recordSamples(Array(samples[..<4]))
        // Re-sending everything adds nothing.
        let again = try await fixture.store.recordSamples(samples)
        #expect(again.inserted == 0 && again.duplicates == samples.count)
        let mean = samples.reduce(0) { $0 + $1.value } / Double(samples.count)
        let values = try await dayOutcome(fixture.store)
        #expect(values.count == 1)
        #expect(abs(values[0].value - mean) < 1e-9)
        #expect(values.first?.measuredAt == samples.last?.start)
    }

    @Test func deletingASampleAfterIncrementalUpdatesRederivesTheMean() async throws {
        let samples = readings()
        let fixture = try F()
        try await fixture.store.addTask(F.weighIn(aggregation: .mean))
        try await fixture.store.recordSamples(Array(samples[..<6]))
        try await fixture.store.recordSamples(Array(samples[6...]))
        #expect(try await fixture.store.deleteSample(id: samples[11].id))
        try await fixture.store.recordSamples([F.weight(90, at: F.berlinTime(2026, 11, 10, 20), payload: 99)])
        let remaining = Array(samples[..<11]) + [F.weight(90, at: F.berlinTime(2026, 11, 10, 20), payload: 99)]
        let mean = remaining.reduce(0) { $0 + $1.value } / Double(remaining.count)
        #expect(try await dayOutcome(fixture.store).map(\.value) == [mean])
    }

    @Test func metadataWithQuotesControlCharactersAndUnicodeRoundTrips() async throws {
        let fixture = try F()
        var sample = F.weight(71, at: F.berlinTime(2026, 11, 10, 7))
        sample.metadata = ["quote\"key": "back\\slash", "line": "one\ntwo\tthree\u{01}", "ü": "€ 😀", "": ""]
        try await fixture.store.recordSample(sample)
        let stored = try #require(try await fixture.store.sample(id: sample.id))
        #expect(stored.sample.metadata == sample.metadata)
        #expect(stored.sample == sample)
    }
}
