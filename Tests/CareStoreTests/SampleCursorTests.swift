import BridgeCore
import Foundation
import Testing

@testable import CareStore

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

    static func readAll(_ cursor: consuming SampleCursor) async throws -> [[StoredSample]] {
        var pages: [[StoredSample]] = []
        while let page = try await cursor.next() { pages.append(page) }
        return pages
    }

    @Test func pagesSplitRunsOfEqualStartTimesWithoutRepeatingOrSkippingAny() async throws {
        let fixture = try StoreFixture()
        try await fixture.store.recordSamples(Self.samples())
        let everything = try await fixture.store.samples(matching: SampleQuery())
        #expect(everything.count == 25)
        for pageSize in [1, 3, 4, 5, 7, 25, 100] {
            let pages = try await Self.readAll(fixture.store.sampleCursor(matching: SampleQuery(), pageSize: pageSize))
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
        let limited = try await Self.readAll(fixture.store.sampleCursor(matching: SampleQuery(limit: 8), pageSize: 3))
        #expect(limited.map(\.count) == [3, 3, 2])
        let ranged = SampleQuery(from: Self.morning.addingTimeInterval(60), to: Self.morning.addingTimeInterval(180))
        let pages = try await Self.readAll(fixture.store.sampleCursor(matching: ranged, pageSize: 4))
        #expect(pages.flatMap { $0 }.count == 10)
        #expect(try await fixture.store.samples(matching: SampleQuery(limit: 8)).count == 8)
    }

    @Test func deletedSamplesAreReadOnlyWhenAskedFor() async throws {
        let fixture = try StoreFixture()
        let samples = Self.samples()
        try await fixture.store.recordSamples(samples)
        #expect(try await fixture.store.deleteSample(id: samples[6].id))
        let live = try await Self.readAll(fixture.store.sampleCursor(matching: SampleQuery(), pageSize: 4)).flatMap {
            $0
        }
        #expect(live.count == 24 && !live.contains { $0.id == samples[6].id })
        let all = try await Self.readAll(
            fixture.store.sampleCursor(matching: SampleQuery(includesDeleted: true), pageSize: 4)
        ).flatMap { $0 }
        #expect(all.count == 25 && all.contains { $0.id == samples[6].id && $0.deletedDate != nil })
    }

    /// A device reading of `type` at `minute` minutes after ``morning``.
    static func reading(
        _ type: QuantityType,
        _ value: Double,
        _ unit: HealthUnit,
        minute: Int,
        payload: [UInt8]
    )
        -> QuantitySample
    {
        let at: Date = morning.addingTimeInterval(TimeInterval(minute * 60))
        let source = SampleSource(kind: .device, decoder: "test-\(type.rawValue)")
        return QuantitySample(
            type: type,
            value: value,
            unit: unit,
            start: at,
            source: source,
            receivedAt: at,
            rawPayload: payload
        )
    }

    /// Weights, heart rates and temperatures interleaved: three types, starts shared within and across types.
    static func mixed() -> [QuantitySample] {
        var samples = Self.samples()
        for index in 0..<20 {
            let value = Double(60 + index)
            samples.append(reading(.heartRate, value, .perMinute, minute: index / 4, payload: [0, UInt8(index)]))
        }
        for index in 0..<6 {
            samples.append(reading(.bodyTemperature, 36.5, .celsius, minute: index % 3, payload: [1, UInt8(index)]))
        }
        return samples
    }

    @Test func pagesOverSeveralTypesKeepTheUnpagedOrderAcrossEqualStartTimes() async throws {
        let fixture = try StoreFixture()
        try await fixture.store.recordSamples(Self.mixed())
        let everything = try await fixture.store.samples(matching: SampleQuery())
        #expect(everything.count == 51)
        // By start, then by the id's last ten bytes (the key's idTail), whatever the type.
        let keys = everything.map { ($0.sample.start, String($0.id.uuidString.lowercased().dropFirst(14))) }
        #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 < $1 })
        #expect(Set(everything.map(\.sample.type)).count == 3)
        for pageSize in [1, 2, 3, 5, 8, 13, 50, 51, 100] {
            let pages = try await Self.readAll(fixture.store.sampleCursor(matching: SampleQuery(), pageSize: pageSize))
            #expect(pages.allSatisfy { !$0.isEmpty && $0.count <= pageSize })
            #expect(pages.flatMap { $0 }.map(\.id) == everything.map(\.id), "page size \(pageSize)")
        }
        let two = SampleQuery(types: [.heartRate, .bodyTemperature], from: Self.morning.addingTimeInterval(60))
        let twoAll = try await fixture.store.samples(matching: two)
        #expect(twoAll.count == 16 + 4)
        for pageSize in [1, 3, 7] {
            let pages = try await Self.readAll(fixture.store.sampleCursor(matching: two, pageSize: pageSize))
            #expect(pages.flatMap { $0 }.map(\.id) == twoAll.map(\.id), "page size \(pageSize)")
        }
    }

    @Test func aPageAfterTheFirstSeeksEachTypesKeyRangeWithoutSortingWhatIsLeft() async throws {
        let fixture = try StoreFixture()
        try await fixture.store.recordSamples(Self.mixed())
        let last = try #require(try await fixture.store.samples(matching: SampleQuery(limit: 10)).last)
        let position = SampleCursor.Position(start: last.sample.start, id: last.id, type: last.sample.type)
        let queries = [
            SampleQuery(),
            SampleQuery(types: [.bodyMass, .heartRate], from: Self.morning, to: Self.morning.addingTimeInterval(600)),
            SampleQuery(types: [.heartRate], from: Self.morning),
            SampleQuery(patientID: "someone"),
        ]
        for query in queries {
            for after in [nil, position] {
                let plan = try await fixture.store.samplePagePlan(matching: query, after: after, limit: 5)
                #expect(!plan.isEmpty)
                #expect(
                    !plan.contains { $0.contains("TEMP B-TREE") },
                    "\(query) after \(String(describing: after)): \(plan)"
                )
                #expect(!plan.contains { $0.hasPrefix("SCAN r") }, "\(plan)")
                let reads = plan.filter { $0.hasPrefix("SEARCH r USING PRIMARY KEY (type=?") }
                #expect(reads.count == (query.types.isEmpty ? 3 : query.types.count), "\(plan)")
                if after != nil {
                    // Sought from the cursor, not from the range's start.
                    #expect(reads.allSatisfy { $0.contains("(start,idTail)>(?,?)") }, "\(plan)")
                }
            }
        }
    }
}
