import BridgeCore
import CarePlan
import CareStore
import Foundation
import Testing

/// A batch keeps each matched sample once, shared by every task it falls into; the outcomes must be exactly those
/// of storing the same samples one at a time.
@Suite struct SharedBatchMatchingTests {
    typealias F = StoreFixture

    static func task(
        _ id: String,
        _ type: QuantityType,
        _ unit: HealthUnit,
        _ aggregation: Aggregation,
        hour: Int = 0,
        duration: EventDuration = .allDay
    ) -> CareTask {
        CareTask(
            id: id,
            title: id,
            kind: .assessment,
            schedule: .daily(
                hour: hour,
                start: WallClockTime(year: 2026, month: 11, day: 1),
                duration: duration,
                timeZone: .fixed("Europe/Berlin")
            ),
            linkage: SampleLinkage(type: type, unit: unit, aggregation: aggregation)
        )
    }

    static let tasks = [
        task("mass-each-kg", .bodyMass, .kilogram, .each),
        task("mass-min-lb", .bodyMass, .pound, .min),
        task("mass-first-morning", .bodyMass, .kilogram, .first, hour: 8, duration: .hours(2)),
        task("mass-max-evening", .bodyMass, .kilogram, .max, hour: 18, duration: .hours(3)),
        task("pulse-mean", .heartRate, .perMinute, .mean),
        task("pulse-each-morning", .heartRate, .perMinute, .each, hour: 7, duration: .hours(4)),
    ]

    /// Two days of body mass (kg and g) and heart rate, interleaved, sent out of order.
    static func samples() -> [QuantitySample] {
        var samples: [QuantitySample] = []
        for day in [10, 11] {
            for hour in stride(from: 6, through: 21, by: 1) {
                var mass = F.weight(
                    70 + Double(hour % 5) * 0.3,
                    at: F.berlinTime(2026, 11, day, hour),
                    payload: UInt8(hour)
                )
                if hour.isMultiple(of: 4) {
                    mass.value *= 1000
                    mass.unit = .gram
                }
                samples.append(mass)
                samples.append(
                    QuantitySample(
                        type: .heartRate,
                        value: 60 + Double((hour * 7) % 13),
                        unit: .perMinute,
                        start: F.berlinTime(2026, 11, day, hour, 30),
                        source: SampleSource(
                            kind: .device,
                            decoder: "heart-rate-measurement",
                            device: DeviceIdentity(address: "C8:47:8C:00:00:02")
                        ),
                        receivedAt: F.berlinTime(2026, 11, day, hour, 30, 1),
                        rawPayload: [0x00, UInt8(day), UInt8(hour)]
                    )
                )
            }
        }
        // Out of order (a stride through the 64 samples): every event's samples are scattered through the batch.
        precondition(samples.count == 64)
        return (0..<samples.count).map { samples[($0 * 7) % samples.count] }
    }

    func outcomes(_ store: CareStore) async throws -> [String: [OutcomeValue]] {
        let events = try await store.events(
            matching: EventQuery(from: F.berlinTime(2026, 11, 10), to: F.berlinTime(2026, 11, 12))
        )
        var result: [String: [OutcomeValue]] = [:]
        for event in events where event.start >= F.berlinTime(2026, 11, 10) {
            result["\(event.taskID) \(event.start)"] = event.outcome?.values ?? []
        }
        return result
    }

    @Test func oneBatchGivesEveryTaskTheOutcomesOfStoringSamplesOneByOne() async throws {
        let samples = Self.samples()
        let recordedAt = F.berlinTime(2026, 11, 12)
        let batched = try F()
        let oneByOne = try F()
        for fixture in [batched, oneByOne] {
            for task in Self.tasks { try await fixture.store.addTask(task) }
        }
        try await batched.store.recordSamples(samples, recordedAt: recordedAt)
        for sample in samples { try await oneByOne.store.recordSamples([sample], recordedAt: recordedAt) }

        let expected = try await outcomes(oneByOne.store)
        let actual = try await outcomes(batched.store)
        #expect(actual == expected)
        // Every task got values on both days, and `each` kept every sample of its window.
        #expect(actual.count == Self.tasks.count * 2)
        #expect(actual.values.allSatisfy { !$0.isEmpty })
        let massEach = actual.filter { $0.key.hasPrefix("mass-each-kg") }.values.map(\.count)
        #expect(massEach == [16, 16])
        #expect(actual.filter { $0.key.hasPrefix("pulse-each-morning") }.values.map(\.count) == [4, 4])
    }
}
