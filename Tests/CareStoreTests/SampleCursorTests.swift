import BridgeCore
import CareStore
import Foundation
import Testing

/// The store's sample cursor: keyset pages in (start, id) order, on a real store file.
@Suite struct SampleCursorTests {
    static let morning = StoreFixture.berlinTime(2026, 11, 20, 7)

    /// 25 weights: five start times, five samples at each (different payloads, so different ids).
    static func samples() -> [QuantitySample] {
        (0..<25).map { index in
            StoreFixture.weight(
                70 + Double(index) / 10,
                at: morning.addingTimeInterval(Double(index / 5) * 60),
                payload: UInt8(index)
            )
        }
    }

    static func readAll(_ cursor: consuming SampleCursor) throws -> [[StoredSample]] {
        var pages: [[StoredSample]] = []
        while let page = try cursor.next() { pages.append(page) }
        return pages
    }

    @Test func pagesSplitRunsOfEqualStartTimesWithoutRepeatingOrSkippingAny() async throws {
        let fixture = try StoreFixture()
        try await fixture.store.recordSamples(Self.samples())
        let everything = try fixture.store.samples(matching: SampleQuery())
        #expect(everything.count == 25)
        for pageSize in [1, 3, 4, 5, 7, 25, 100] {
            let pages = try Self.readAll(fixture.store.sampleCursor(matching: SampleQuery(), pageSize: pageSize))
            #expect(pages.allSatisfy { !$0.isEmpty && $0.count <= pageSize })
            #expect(pages.count == (25 + pageSize - 1) / pageSize)
            #expect(pages.flatMap { $0 }.map(\.id) == everything.map(\.id), "page size \(pageSize)")
        }
        // The store's order: by start, then by the id's bytes.
        let keys = everything.map { ($0.sample.start, $0.id.uuidString.lowercased()) }
        #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test func theQueryLimitCapsTheTotalAndTheTimeRangeHolds() async throws {
        let fixture = try StoreFixture()
        try await fixture.store.recordSamples(Self.samples())
        let limited = try Self.readAll(fixture.store.sampleCursor(matching: SampleQuery(limit: 8), pageSize: 3))
        #expect(limited.map(\.count) == [3, 3, 2])
        let ranged = SampleQuery(from: Self.morning.addingTimeInterval(60), to: Self.morning.addingTimeInterval(180))
        let pages = try Self.readAll(fixture.store.sampleCursor(matching: ranged, pageSize: 4))
        #expect(pages.flatMap { $0 }.count == 10)
        #expect(try fixture.store.samples(matching: SampleQuery(limit: 8)).count == 8)
    }

    @Test func deletedSamplesAreReadOnlyWhenAskedFor() async throws {
        let fixture = try StoreFixture()
        let samples = Self.samples()
        try await fixture.store.recordSamples(samples)
        #expect(try fixture.store.deleteSample(id: samples[6].id))
        let live = try Self.readAll(fixture.store.sampleCursor(matching: SampleQuery(), pageSize: 4)).flatMap { $0 }
        #expect(live.count == 24 && !live.contains { $0.id == samples[6].id })
        let all = try Self.readAll(
            fixture.store.sampleCursor(matching: SampleQuery(includesDeleted: true), pageSize: 4)
        ).flatMap { $0 }
        #expect(all.count == 25 && all.contains { $0.id == samples[6].id && $0.deletedDate != nil })
    }
}
