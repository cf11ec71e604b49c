import BridgeCore
import CarePlan
import CareStore
import Foundation
import GRDB
import Testing

/// Retention on real store files: exact aggregates, outcomes kept, queries across the horizon, idempotence.
@Suite struct RetentionTests {
    typealias F = StoreFixture

    /// Vacuums count back from here: 2026-11-02 is 48 days before, so a 30-day rule aggregates it.
    static let now = F.berlinTime(2026, 12, 20, 12)
    static let day = F.berlinTime(2026, 11, 2, 8)

    /// A daily heart-rate assessment with `aggregation`, all-day in Berlin.
    static func heartRateTask(_ id: String, _ aggregation: Aggregation) -> CareTask {
        CareTask(
            id: id,
            title: "Heart rate \(aggregation)",
            kind: .assessment,
            schedule: .daily(
                hour: 0,
                start: WallClockTime(year: 2026, month: 11, day: 1),
                duration: .allDay,
                timeZone: .fixed("Europe/Berlin")
            ),
            linkage: SampleLinkage(type: .heartRate, unit: .perMinute, aggregation: aggregation)
        )
    }

    /// 1 Hz heart rate from a strap for `seconds`, values 50…129 from a seeded sequence; a second strap sends
    /// every tenth second, half a second later (no two samples share an instant: with aggregates a tie between
    /// devices has no sample id to break it). Fractional start times exercise the millisecond bucketing.
    static func heartRate(seconds: Int, from start: Date = day) -> [QuantitySample] {
        var state: UInt64 = 2026
        var samples: [QuantitySample] = []
        for second in 0..<seconds {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let value = Double(50 + Int((state >> 33) % 80))
            let time = start.addingTimeInterval(Double(second) + 0.25)
            for (strap, address) in [(0, "F0:00:00:00:00:01"), (1, "F0:00:00:00:00:02")]
            where strap == 0 || second % 10 == 0 {
                samples.append(
                    QuantitySample(
                        type: .heartRate,
                        value: value + Double(strap),
                        unit: .perMinute,
                        start: time.addingTimeInterval(Double(strap) / 2),
                        source: SampleSource(
                            kind: .device,
                            decoder: "heart-rate-measurement",
                            device: DeviceIdentity(address: address)
                        ),
                        rawPayload: [0x06, UInt8(second & 0xFF), UInt8(second >> 8), UInt8(strap)]
                    )
                )
            }
        }
        return samples
    }

    static func fixture(
        rule: RetentionRule = RetentionRule(type: .heartRate, keepRawDays: 30)
    ) async throws -> StoreFixture {
        let fixture = try StoreFixture()
        try await fixture.store.setRetentionPolicy(RetentionPolicy(rules: [rule]))
        return fixture
    }

    static func outcomes(_ store: CareStore, task: String) async throws -> [[OutcomeValue]] {
        try await store.events(
            matching: EventQuery(from: F.berlinTime(2026, 11, 1), to: F.berlinTime(2026, 11, 4), taskIDs: [task])
        ).map { $0.outcome?.values ?? [] }
    }

    @Test func aggregatesAreExactPerMinuteAndDevice() async throws {
        let fixture = try await Self.fixture()
        let samples = Self.heartRate(seconds: 3 * 3600 + 17)
        try await fixture.store.recordSamples(samples)
        let raw = try await fixture.store.samples(matching: SampleQuery(types: [.heartRate]))
        let steps = try await fixture.store.applyRetention(now: Self.now, batchSeconds: 3600)
        #expect(steps.map(\.samples) == [samples.count])
        let aggregates = try await fixture.store.sampleAggregates(matching: SampleQuery(types: [.heartRate]))
        // The expected aggregates, computed here from the raw samples.
        var expected: [String: [StoredSample]] = [:]
        for stored in raw {
            let minute = Int((stored.sample.start.timeIntervalSince1970 / 60).rounded(.down))
            expected["\(minute) \(stored.sample.source.device!.address!)", default: []].append(stored)
        }
        #expect(aggregates.count == expected.count)
        #expect(aggregates.reduce(0) { $0 + $1.count } == samples.count)
        for aggregate in aggregates {
            let minute = Int((aggregate.bucketStart.timeIntervalSince1970 / 60).rounded(.down))
            let group = try #require(expected["\(minute) \(aggregate.device!.address!)"])
            let values = group.map(\.sample.value)
            #expect(aggregate.count == group.count)
            #expect(aggregate.sum == values.reduce(0, +))
            #expect(aggregate.mean == values.reduce(0, +) / Double(values.count))
            #expect(aggregate.min == values.min())
            #expect(aggregate.max == values.max())
            #expect(aggregate.minAt == group.first { $0.sample.value == values.min() }!.sample.start)
            #expect(aggregate.maxAt == group.first { $0.sample.value == values.max() }!.sample.start)
            #expect(aggregate.first == group.first!.sample.value)
            #expect(aggregate.firstAt == group.first!.sample.start)
            #expect(aggregate.last == group.last!.sample.value)
            #expect(aggregate.lastAt == group.last!.sample.start)
            #expect(aggregate.bucketEnd.timeIntervalSince(aggregate.bucketStart) == 60)
            #expect(aggregate.unit == .perMinute)
        }
        #expect(try await fixture.store.sampleCount() == 0)
    }

    @Test func eventsCompletedBeforeKeepTheirOutcomesAndNewTasksAnswerFromAggregates() async throws {
        let fixture = try await Self.fixture()
        let aggregations: [Aggregation] = [.mean, .sum, .min, .max, .first, .last, .each]
        try await fixture.store.applyPlan(
            CarePlanDocument(tasks: aggregations.map { Self.heartRateTask("before-\($0)", $0) })
        )
        try await fixture.store.recordSamples(Self.heartRate(seconds: 2 * 3600))
        var before: [Aggregation: [[OutcomeValue]]] = [:]
        for aggregation in aggregations {
            before[aggregation] = try await Self.outcomes(fixture.store, task: "before-\(aggregation)")
        }
        #expect(before[.each]?.flatMap { $0 }.count == 2 * 3600 + 720)
        try await fixture.store.applyRetention(now: Self.now)
        #expect(try await fixture.store.sampleCount() == 0)
        for aggregation in aggregations {
            // Kept exactly: values, times, sample ids.
            #expect(try await Self.outcomes(fixture.store, task: "before-\(aggregation)") == before[aggregation])
        }
        // Tasks added after the vacuum are derived from the aggregates: exact for every aggregation but `each`
        // (one value per aggregate, its mean).
        try await fixture.store.applyPlan(
            CarePlanDocument(tasks: aggregations.map { Self.heartRateTask("after-\($0)", $0) })
        )
        for aggregation in [Aggregation.mean, .sum, .min, .max, .first, .last] {
            let old = try #require(before[aggregation]?.flatMap { $0 })
            let new = try await Self.outcomes(fixture.store, task: "after-\(aggregation)").flatMap { $0 }
            #expect(new.map(\.value) == old.map(\.value), "\(aggregation)")
            #expect(new.map(\.measuredAt) == old.map(\.measuredAt), "\(aggregation)")
            #expect(new.allSatisfy { $0.sampleID == nil })
        }
        let each = try await Self.outcomes(fixture.store, task: "after-each").flatMap { $0 }
        let aggregates = try await fixture.store.sampleAggregates(matching: SampleQuery(types: [.heartRate]))
        // Two straps' aggregates can start at the same instant: compared as sets of values.
        #expect(each.map(\.value).sorted() == aggregates.map(\.mean).sorted())
    }

    @Test func rangeStraddlingTheHorizonReturnsRawAndAggregatesWithoutDoubleCounting() async throws {
        let fixture = try await Self.fixture(rule: RetentionRule(type: .heartRate, keepRawDays: 1))
        // Six hours around the horizon (now − 1 day, on a minute boundary).
        let now = F.berlinTime(2026, 11, 3, 11, 0, 30)
        let samples = Self.heartRate(seconds: 6 * 3600, from: F.berlinTime(2026, 11, 2, 8))
        try await fixture.store.recordSamples(samples)
        let plan = try await fixture.store.retentionPlan(now: now)
        let horizon = try #require(plan.first?.horizon)
        #expect(horizon == F.berlinTime(2026, 11, 2, 11))
        try await fixture.store.applyRetention(now: now)
        let query = SampleQuery(
            types: [.heartRate],
            from: F.berlinTime(2026, 11, 2, 9),
            to: F.berlinTime(2026, 11, 2, 13)
        )
        let raw = try await fixture.store.samples(matching: query)
        let aggregates = try await fixture.store.sampleAggregates(matching: query)
        #expect(raw.allSatisfy { $0.sample.start >= horizon })
        #expect(aggregates.allSatisfy { $0.lastAt < horizon })
        let expected = samples.filter { $0.start >= query.from! && $0.start < query.to! }
        #expect(raw.count + aggregates.reduce(0) { $0 + $1.count } == expected.count)
        #expect(
            raw.reduce(0) { $0 + $1.sample.value } + aggregates.reduce(0) { $0 + $1.sum }
                == expected.reduce(0) { $0 + $1.value }
        )
    }

    @Test func vacuumTwiceChangesNothingAndADryRunChangesNothing() async throws {
        let fixture = try await Self.fixture()
        try await fixture.store.recordSamples(Self.heartRate(seconds: 3600))
        let untouched = StoreFixture.weight(72, at: Self.day)
        try await fixture.store.recordSample(untouched)
        func snapshot() throws -> [Row] {
            try fixture.store.databaseWriter.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM sampleAggregate ORDER BY id")
                    + Row.fetchAll(db, sql: "SELECT * FROM sampleRow ORDER BY type, start, idTail")
                    + Row.fetchAll(db, sql: "SELECT * FROM sampleOrigin ORDER BY id")
            }
        }
        let initial = try snapshot()
        let plan = try await fixture.store.retentionPlan(now: Self.now)
        #expect(plan.map(\.samples) == [3600 + 360])
        #expect(plan.map(\.aggregates) == [60 * 2])
        #expect(try snapshot() == initial)
        let first = try await fixture.store.applyRetention(now: Self.now)
        #expect(first.map(\.samples) == [3600 + 360])
        #expect(first.map(\.aggregates) == [60 * 2])
        let vacuumed = try snapshot()
        // The deleted samples' payloads went with them; the weight's stays.
        #expect(
            try await fixture.store.databaseWriter.read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM sampleOrigin")
            }
                == 1
        )
        let second = try await fixture.store.applyRetention(now: Self.now)
        #expect(second.map(\.samples) == [0])
        #expect(try snapshot() == vacuumed)
        // The type without a rule is untouched.
        #expect(try await fixture.store.sample(id: untouched.id) != nil)
        #expect(try await fixture.store.sampleCount() == 1)
    }

    @Test func everyCommittedBatchIsConsistentAndAReImportIsNotStoredTwice() async throws {
        let fixture = try await Self.fixture()
        let samples = Self.heartRate(seconds: 4 * 3600)
        try await fixture.store.recordSamples(samples)
        var checks = 0
        try await fixture.store.applyRetention(now: Self.now, batchSeconds: 1800) { progress in
            // Read from the file after each commit: nothing lost, nothing counted twice.
            let raw = (try? await fixture.store.sampleCount()) ?? -1
            let aggregated = (try? await fixture.store.aggregateCount().samples) ?? -1
            #expect(raw + aggregated == samples.count)
            #expect(aggregated == progress.samplesDone)
            checks += 1
        }
        #expect(checks == 8)
        let again = try await fixture.store.recordSamples(samples)
        #expect(again.inserted == 0)
        #expect(again.alreadyAggregated == samples.count)
        #expect(try await fixture.store.sampleCount() == 0)
    }

    @Test func manualQuarantinedAndRecentSamplesStayRaw() async throws {
        let fixture = try await Self.fixture()
        let old = Self.heartRate(seconds: 120)
        let manual = QuantitySample(
            type: .heartRate,
            value: 64,
            unit: .perMinute,
            start: Self.day.addingTimeInterval(600),
            source: SampleSource(kind: .manual)
        )
        var quarantined = Self.heartRate(seconds: 1, from: Self.day.addingTimeInterval(900))[0]
        quarantined.quarantineReason = "implausible"
        let recent = Self.heartRate(seconds: 60, from: Self.now.addingTimeInterval(-86_400))
        try await fixture.store.recordSamples(old + [manual, quarantined] + recent)
        let steps = try await fixture.store.applyRetention(now: Self.now)
        #expect(steps.map(\.samples) == [old.count])
        #expect(try await fixture.store.sample(id: manual.id) != nil)
        #expect(try await fixture.store.sample(id: quarantined.id) != nil)
        #expect(try await fixture.store.samples(matching: SampleQuery(types: [.heartRate])).count == 1 + recent.count)
    }
}
