import BridgeCore
import CarePlan
import CareStore
import Foundation
import TestSupport
import Testing

@Suite struct AutoCompletionTests {
    typealias F = StoreFixture

    /// The events of the day 2026-11-10 (Berlin) for one task.
    func day(_ store: CareStore, _ day: Int = 10, task: String = "weigh-in") async throws -> [CareEvent] {
        try await store.events(
            matching: EventQuery(
                from: F.berlinTime(2026, 11, day),
                to: F.berlinTime(2026, 11, day + 1),
                taskIDs: [task]
            )
        ).filter { $0.start >= F.berlinTime(2026, 11, day) }
    }

    @Test func sampleInAllDayWindowCompletesThatDaysEvent() async throws {
        let fixture = try F()
        try await fixture.store.addTask(F.weighIn())
        let sample = F.weight(72.4, at: F.berlinTime(2026, 11, 10, 7, 30))
        let report = try await fixture.store.recordSample(sample)
        #expect(report.inserted == 1 && report.eventsUpdated == 1 && report.unmatched == 0)
        let event = try #require(try await day(fixture.store).first)
        #expect(event.isCompleted)
        #expect(event.outcome?.values.map(\.value) == [72.4])
        #expect(event.outcome?.values.first?.sampleID == sample.id)
        #expect(event.outcome?.values.first?.measuredAt == sample.start)
        // Neighbouring days stay open.
        #expect(try await day(fixture.store, 9).first?.isCompleted == false)
        #expect(try await day(fixture.store, 11).first?.isCompleted == false)
    }

    @Test(arguments: [(0, 0, 0, true), (23, 59, 59, true)])
    func allDayWindowIncludesBothEndsOfTheLocalDay(hour: Int, minute: Int, second: Int, expected: Bool) async throws {
        let fixture = try F()
        try await fixture.store.addTask(F.weighIn())
        try await fixture.store.recordSample(F.weight(70, at: F.berlinTime(2026, 11, 10, hour, minute, second)))
        #expect(try await day(fixture.store).first?.isCompleted == expected)
        #expect(try await day(fixture.store, 9).first?.isCompleted == false)
        #expect(try await day(fixture.store, 11).first?.isCompleted == false)
    }

    @Test func timedWindowIncludesStartAndExcludesEnd() async throws {
        let fixture = try F()
        try await fixture.store.addTask(F.weighIn(duration: .hours(1), hour: 8))
        let atStart = F.weight(70, at: F.berlinTime(2026, 11, 10, 8, 0))
        let atEnd = F.weight(71, at: F.berlinTime(2026, 11, 11, 9, 0))
        try await fixture.store.recordSamples([atStart, atEnd])
        #expect(try await day(fixture.store, 10).first?.outcome?.values.map(\.value) == [70])
        #expect(try await day(fixture.store, 11).first?.outcome == nil)
        let unmatched = try await fixture.store.samples(matching: SampleQuery(unmatchedOnly: true))
        #expect(unmatched.map(\.id) == [atEnd.id])
    }

    @Test(arguments: Aggregation.allCases)
    func twoSamplesInOneEvent(aggregation: Aggregation) async throws {
        let fixture = try F()
        try await fixture.store.addTask(F.weighIn(aggregation: aggregation))
        // The later sample is lighter, so first ≠ min and last ≠ max.
        let early = F.weight(73.0, at: F.berlinTime(2026, 11, 10, 7, 0), payload: 1)
        let late = F.weight(72.0, at: F.berlinTime(2026, 11, 10, 21, 0), payload: 2)
        // Stored late first, in separate transactions, to exercise the incremental path.
        try await fixture.store.recordSample(late)
        try await fixture.store.recordSample(early)
        let values = try #require(try await day(fixture.store).first?.outcome?.values)
        let expected: [(Double, UUID?)] =
            switch aggregation {
            case .each: [(early.value, early.id), (late.value, late.id)]
            case .first: [(early.value, early.id)]
            case .last: [(late.value, late.id)]
            case .min: [(min(early.value, late.value), late.id)]
            case .max: [(max(early.value, late.value), early.id)]
            case .mean: [((early.value + late.value) / 2, nil)]
            case .sum: [(early.value + late.value, nil)]
            }
        #expect(values.map(\.value) == expected.map(\.0))
        #expect(values.map(\.sampleID) == expected.map(\.1))
        // One batch gives the same outcome as two separate calls.
        let batch = try F()
        try await batch.store.addTask(F.weighIn(aggregation: aggregation))
        try await batch.store.recordSamples([late, early])
        #expect(try await day(batch.store).first?.outcome?.values.map(\.value) == values.map(\.value))
    }

    @Test func valuesAreConvertedToTheLinkageUnit() async throws {
        let fixture = try F()
        try await fixture.store.addTask(F.weighIn(unit: .pound))
        let sample = F.weight(45.359237, at: F.berlinTime(2026, 11, 10, 7))
        try await fixture.store.recordSample(sample)
        let value = try #require(try await day(fixture.store).first?.outcome?.values.first)
        #expect(value.unit == .pound)
        #expect(abs(value.value - HealthUnit.kilogram.convert(sample.value, to: .pound)!) < 1e-9)
    }

    @Test func lateSampleFromScaleMemoryCompletesItsOwnPastDay() async throws {
        let fixture = try F()
        try await fixture.store.addTask(F.weighIn())
        // Today's reading first, then history downloaded from the scale's memory.
        try await fixture.store.recordSample(
            F.weight(72, at: F.berlinTime(2026, 11, 20, 7)),
            recordedAt: F.berlinTime(2026, 11, 20, 7)
        )
        let past = F.weight(73, at: F.berlinTime(2026, 11, 12, 7))
        try await fixture.store.recordSample(past, recordedAt: F.berlinTime(2026, 11, 20, 7, 1))
        #expect(try await day(fixture.store, 12).first?.outcome?.values.first?.sampleID == past.id)
        #expect(try await day(fixture.store, 20).first?.outcome?.values.map(\.value) == [72])
    }

    @Test func sampleBeforeEffectiveDateStaysUnmatchedAndQueryable() async throws {
        let fixture = try F()
        try await fixture.store.addTask(F.weighIn(effectiveDate: F.berlinTime(2026, 11, 10, 12)))
        let before = F.weight(72, at: F.berlinTime(2026, 11, 10, 7))
        let after = F.weight(71, at: F.berlinTime(2026, 11, 10, 13))
        let report = try await fixture.store.recordSamples([before, after])
        #expect(report.unmatched == 1)
        #expect(try await day(fixture.store).first?.outcome?.values.map(\.sampleID) == [after.id])
        #expect(try await fixture.store.samples(matching: SampleQuery(unmatchedOnly: true)).map(\.id) == [before.id])
        #expect(try await fixture.store.samples(matching: SampleQuery(types: [.bodyMass])).count == 2)
    }

    @Test func sampleWithoutAnyLinkedTaskIsUnmatched() async throws {
        let fixture = try F()
        try await fixture.store.addTask(F.medication())
        let sample = F.weight(70, at: F.berlinTime(2026, 11, 10, 8, 30))
        #expect(try await fixture.store.recordSample(sample).unmatched == 1)
        #expect(try await fixture.store.samples(matching: SampleQuery(unmatchedOnly: true)).map(\.id) == [sample.id])
    }

    @Test func storingTheSameSampleTwiceChangesNothing() async throws {
        let fixture = try F()
        try await fixture.store.addTask(F.weighIn(aggregation: .each))
        let sample = F.weight(72.4, at: F.berlinTime(2026, 11, 10, 7, 30))
        try await fixture.store.recordSample(sample, recordedAt: F.berlinTime(2026, 11, 10, 7, 31))
        let before = try await day(fixture.store)
        let again = try await fixture.store.recordSamples([sample, sample], recordedAt: F.berlinTime(2026, 11, 10, 9))
        #expect(again.inserted == 0 && again.duplicates == 2 && again.eventsUpdated == 0)
        #expect(try await day(fixture.store) == before)
        #expect(try await fixture.store.sampleCount() == 1)
    }

    @Test func deletingASampleRederivesTheOutcomesItFed() async throws {
        let fixture = try F()
        try await fixture.store.addTask(F.weighIn(aggregation: .first))
        let early = F.weight(73, at: F.berlinTime(2026, 11, 10, 7), payload: 1)
        let late = F.weight(72, at: F.berlinTime(2026, 11, 10, 20), payload: 2)
        try await fixture.store.recordSamples([early, late])
        #expect(try await day(fixture.store).first?.outcome?.values.first?.sampleID == early.id)

        #expect(try await fixture.store.deleteSample(id: early.id))
        #expect(try await day(fixture.store).first?.outcome?.values.map(\.sampleID) == [late.id])
        #expect(try await fixture.store.deleteSample(id: late.id))
        let event = try #require(try await day(fixture.store).first)
        #expect(event.outcome == nil && !event.isCompleted)
        // A tombstone: re-importing the deleted reading does not bring it back.
        #expect(try await fixture.store.recordSample(early).duplicates == 1)
        #expect(try await day(fixture.store).first?.outcome == nil)
        #expect(try await fixture.store.sample(id: early.id)?.deletedDate != nil)
        #expect(try await fixture.store.deleteSample(id: early.id) == false)
    }

    @Test func outOfOrderSamplesKeepMeasurementOrderInEach() async throws {
        let fixture = try F()
        try await fixture.store.addTask(F.weighIn(aggregation: .each))
        let times = [9, 7, 20, 8].map { F.berlinTime(2026, 11, 10, $0) }
        for (index, time) in times.enumerated() {
            try await fixture.store.recordSample(F.weight(70 + Double(index), at: time, payload: UInt8(index)))
        }
        let measured = try #require(try await day(fixture.store).first?.outcome?.values.map(\.measuredAt))
        #expect(measured == times.sorted())
    }

    @Test func targetValuesMakeProgressUntilMet() async throws {
        let fixture = try F()
        try await fixture.store.addTask(
            F.weighIn(aggregation: .each, targetValues: [TargetValue(value: 150, unit: .kilogram)])
        )
        try await fixture.store.recordSample(F.weight(70, at: F.berlinTime(2026, 11, 10, 7), payload: 1))
        let partial = try #require(try await day(fixture.store).first)
        #expect(!partial.isCompleted)
        #expect(abs(partial.progress - 70.0 / 150.0) < 1e-12)
        try await fixture.store.recordSample(F.weight(80, at: F.berlinTime(2026, 11, 10, 8), payload: 2))
        #expect(try await day(fixture.store).first?.isCompleted == true)
    }

    @Test func planAppliedAfterSamplesDerivesTheirOutcomes() async throws {
        let fixture = try F()
        let sample = F.weight(72, at: F.berlinTime(2026, 11, 10, 7))
        try await fixture.store.recordSample(sample)
        #expect(try await fixture.store.samples(matching: SampleQuery(unmatchedOnly: true)).count == 1)
        let report = try await fixture.store.applyPlan(CarePlanDocument(tasks: [F.weighIn()]))
        #expect(report.added == ["weigh-in"] && report.eventsUpdated == 1)
        #expect(try await day(fixture.store).first?.outcome?.values.first?.sampleID == sample.id)
        #expect(try await fixture.store.samples(matching: SampleQuery(unmatchedOnly: true)).isEmpty)
    }

    @Test func changeStreamReportsSamplesAndEvents() async throws {
        let fixture = try F()
        try await fixture.store.addTask(F.weighIn())
        let changes = fixture.store.changes()
        let sample = F.weight(72, at: F.berlinTime(2026, 11, 10, 7))
        try await fixture.store.recordSample(sample)
        var iterator = changes.makeAsyncIterator()
        let batch = try #require(await iterator.next())
        #expect(batch.contains(.sampleAdded(id: sample.id, type: .bodyMass, start: sample.start)))
        let event = try #require(try await day(fixture.store).first)
        #expect(batch.contains(.eventUpdated(event.key)))
    }
}

@Suite struct TimeZoneMatchingTests {
    typealias F = StoreFixture

    @Test func lateEveningOnThe25HourDayMatchesThatDay() async throws {
        // 2026-10-25 in Berlin has 25 hours (CEST → CET): 23:30 local is 22:30 UTC, still the 25th.
        let fixture = try F()
        try await fixture.store.addTask(F.weighIn())
        let sample = F.weight(70, at: F.berlinTime(2026, 10, 25, 23, 30))
        #expect(try await fixture.store.recordSample(sample).unmatched == 1)  // before the plan's start (Nov 1)
        let november = try F()
        var task = F.weighIn()
        task.schedule = .daily(
            hour: 0,
            start: WallClockTime(year: 2026, month: 10, day: 1),
            duration: .allDay,
            timeZone: .fixed("Europe/Berlin")
        )
        try await november.store.addTask(task)
        try await november.store.recordSample(sample)
        let events = try await november.store.events(
            matching: EventQuery(from: F.berlinTime(2026, 10, 25), to: F.berlinTime(2026, 10, 26))
        ).filter { $0.start >= F.berlinTime(2026, 10, 25) }
        let event = try #require(events.first)
        #expect(event.end.timeIntervalSince(event.start) == 25 * 3600 - 1)
        #expect(event.outcome?.values.first?.sampleID == sample.id)
    }

    @Test func fixedZoneScheduleIgnoresTheBridgeZoneButFloatingFollowsIt() async throws {
        let newYork = TimeZone(identifier: "America/New_York")!
        let instant = F.berlinTime(2026, 11, 10, 3)  // 03:00 Berlin = 21:00 New York on the 9th
        for (policy, expectedDay) in [(TimeZonePolicy.fixed("Europe/Berlin"), 10), (.floating, 9)] {
            let fixture = try F(bridgeZone: newYork)
            var task = F.weighIn()
            task.schedule.timeZonePolicy = policy
            try await fixture.store.addTask(task)
            try await fixture.store.recordSample(F.weight(70, at: instant))
            let completed = try await fixture.store.events(
                matching: EventQuery(from: F.berlinTime(2026, 11, 8), to: F.berlinTime(2026, 11, 12))
            ).filter(\.isCompleted)
            let zone = policy == .floating ? newYork : F.berlin
            #expect(completed.map { WallClockTime($0.start, in: zone).day } == [expectedDay])
        }
    }

    @Test func eventIDsAreStableAcrossRestarts() async throws {
        let fixture = try F()
        try await fixture.store.applyPlan(CarePlanDocument(tasks: [F.weighIn(), F.medication()]))
        let query = EventQuery(from: F.berlinTime(2026, 11, 10), to: F.berlinTime(2026, 11, 20))
        let before = try await fixture.store.events(matching: query).map(\.id)
        let reopened = try CareStore(
            path: fixture.directory.path("care/store.sqlite"),
            bridgeZone: F.berlin,
            logger: .quiet
        )
        #expect(try await reopened.events(matching: query).map(\.id) == before)
        #expect(before.count == 20)
    }
}
