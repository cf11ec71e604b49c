import BridgeCore
import BridgeFoundation
import CarePlan
import CareStore
import CoreFoundation
import Foundation
import GATTDecoding
import GRDB
import Logging

#if canImport(Glibc)
import Glibc
import TestSupport
#endif

/// The 20-task plan both store benchmarks use: 12 linked assessments (every aggregation) and 8 interventions,
/// all in Europe/Berlin, starting on `start`.
func benchmarkPlan(start: WallClockTime) -> CarePlanDocument {
    let zone = TimeZonePolicy.fixed("Europe/Berlin")
    func assessment(_ id: String, _ schedule: Schedule, _ type: QuantityType, _ aggregation: Aggregation) -> CareTask {
        CareTask(
            id: id,
            title: id,
            kind: .assessment,
            schedule: schedule,
            linkage: SampleLinkage(type: type, unit: type.canonicalUnit, aggregation: aggregation)
        )
    }
    func intervention(_ id: String, _ schedule: Schedule) -> CareTask {
        CareTask(id: id, title: id, kind: .intervention, schedule: schedule)
    }
    let allDay = Schedule.daily(hour: 0, start: start, duration: .allDay, timeZone: zone)
    let every4h = Schedule(
        timeZonePolicy: zone,
        elements: [ScheduleElement(start: start, interval: .hours(4), duration: .hours(1))]
    )
    return CarePlanDocument(tasks: [
        assessment("weigh-in", allDay, .bodyMass, .first),
        assessment(
            "weight-evening",
            .daily(hour: 18, start: start, duration: .hours(2), timeZone: zone),
            .bodyMass,
            .last
        ),
        assessment("temperature-morning", .daily(hour: 7, start: start, timeZone: zone), .bodyTemperature, .max),
        assessment("temperature-evening", .daily(hour: 19, start: start, timeZone: zone), .bodyTemperature, .min),
        assessment("resting-heart-rate", allDay, .heartRate, .mean),
        assessment("heart-rate-checks", every4h, .heartRate, .each),
        assessment(
            "systolic",
            .daily(hour: 8, start: start, duration: .hours(2), timeZone: zone),
            .bloodPressureSystolic,
            .each
        ),
        assessment(
            "diastolic",
            .daily(hour: 8, start: start, duration: .hours(2), timeZone: zone),
            .bloodPressureDiastolic,
            .each
        ),
        assessment(
            "fasting-glucose",
            .daily(hour: 6, start: start, duration: .hours(2), timeZone: zone),
            .bloodGlucose,
            .first
        ),
        assessment("glucose-day", allDay, .bloodGlucose, .mean),
        assessment("oxygen", allDay, .oxygenSaturation, .min),
        assessment(
            "heart-beats",
            .daily(hour: 12, start: start, duration: .hours(1), timeZone: zone),
            .heartRate,
            .sum
        ),
        intervention("medication-morning", .daily(hour: 8, start: start, timeZone: zone)),
        intervention("medication-evening", .daily(hour: 20, start: start, timeZone: zone)),
        intervention("walk", .daily(hour: 16, start: start, duration: .hours(2), timeZone: zone)),
        intervention(
            "stretching",
            .weekly(weekdays: [.monday, .wednesday, .friday], hour: 10, start: start, timeZone: zone)
        ),
        intervention("breathing", .every(days: 2, hour: 21, start: start, duration: .minutes(30), timeZone: zone)),
        intervention("inhaler", .weeklyOccurrences([0, 2, 0, 2, 0, 2, 0], start: start, timeZone: zone)),
        intervention("foot-check", .daily(hour: 0, start: start, duration: .allDay, timeZone: zone)),
        intervention("hydration", .daily(hour: 9, start: start, duration: .hours(10), timeZone: zone)),
    ])
}

/// `count` device samples, one every `spacing` seconds from `start`, cycling through the linked types.
func benchmarkSamples(count: Int, from start: Date, spacing: Double) -> [QuantitySample] {
    let device = DeviceIdentity(address: "C8:47:8C:00:00:01", name: "bench", model: "BF 720")
    let source = SampleSource(kind: .device, characteristic: BluetoothUUID(0x2A9D), decoder: "bench", device: device)
    let mix: [(QuantityType, Double, Double)] = [
        (.heartRate, 60, 40), (.heartRate, 60, 40), (.heartRate, 60, 40), (.heartRate, 60, 40), (.heartRate, 60, 40),
        (.bodyMass, 70, 5), (.bodyTemperature, 36.5, 1.5), (.bloodPressureSystolic, 120, 30),
        (.bloodPressureDiastolic, 80, 20), (.bloodGlucose, 100, 40), (.oxygenSaturation, 97, 3),
    ]
    var generator = SplitMix64(seed: 42)
    var samples: [QuantitySample] = []
    samples.reserveCapacity(count)
    for index in 0..<count {
        let (type, base, spread) = mix[index % mix.count]
        let time = start.addingTimeInterval(Double(index) * spacing)
        let value = (base + (generator.nextUnit() - 0.5) * spread * 10).rounded() / 10
        var payload = [UInt8](repeating: 0, count: 10)
        var bits = generator.next()
        for byte in 0..<8 {
            payload[byte] = UInt8(truncatingIfNeeded: bits)
            bits >>= 8
        }
        samples.append(
            QuantitySample(
                type: type,
                value: value,
                unit: type.canonicalUnit,
                start: time,
                source: source,
                receivedAt: time.addingTimeInterval(2),
                rawPayload: payload
            )
        )
    }
    return samples
}

extension SplitMix64 {
    /// A value in [0, 1) (TestSupport's SplitMix64).
    mutating func nextUnit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

/// CPU seconds this process (or, with `RUSAGE_CHILDREN`, its waited-for children) has used, user + system: a fair
/// figure when other work shares the machine.
func processCPUSeconds(of who: __rusage_who = RUSAGE_SELF) -> Double {
    var usage = rusage()
    getrusage(who.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// Runs `body`, returning wall-clock and CPU seconds.
func measure(_ body: () async throws -> Void) async rethrows -> (wall: Double, cpu: Double) {
    let clock = ContinuousClock()
    let cpuStart = processCPUSeconds()
    let wall = try await clock.measure(body)
    return (seconds(wall), processCPUSeconds() - cpuStart)
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func benchmarkDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("carebridge-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

let quietLogger = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })
let berlin = TimeZone(identifier: "Europe/Berlin")!
