import BridgeCore
import CareStore
import Foundation
import Testing

/// A repeat of a stored reading (a record downloaded again) adds the metadata keys the stored copy lacks and
/// changes nothing else.
@Suite struct RepeatMetadataTests {
    typealias F = StoreFixture

    @Test func aRepeatAddsMissingMetadataKeysAndKeepsEverythingStored() async throws {
        let fixture = try F()
        var first = F.weight(72.4, at: F.berlinTime(2026, 11, 10, 7, 30))
        first.metadata = ["sequenceNumber": "2"]
        #expect(try await fixture.store.recordSample(first).inserted == 1)

        var repeated = first
        repeated.metadata = ["sequenceNumber": "9", "mealName": "postprandial"]
        #expect(repeated.id == first.id, "same reading, same identity")
        let report = try await fixture.store.recordSample(repeated)
        #expect(report.inserted == 0 && report.duplicates == 1)

        let stored = try #require(try await fixture.store.sample(id: first.id)).sample
        #expect(stored.metadata == ["sequenceNumber": "2", "mealName": "postprandial"], "stored keys win")
        #expect(stored.value == first.value)
        #expect(try await fixture.store.sampleCount() == 1)
    }

    @Test func aRepeatWithoutNewKeysLeavesTheRowAlone() async throws {
        let fixture = try F()
        var sample = F.weight(70, at: F.berlinTime(2026, 11, 10, 7, 30))
        sample.metadata = ["userID": "3"]
        try await fixture.store.recordSample(sample)
        var repeated = sample
        repeated.metadata = [:]
        try await fixture.store.recordSample(repeated)
        #expect(try await fixture.store.sample(id: sample.id)?.sample.metadata == ["userID": "3"])
    }
}
