import BridgeCore
import CarePlan
import CareStore
import Foundation
import Logging

/// Samples per second through the store's routing (SampleRouter, in `recordSamples`) with N patients: one patient
/// (the shortcut every single-patient store takes) against N patients who each own a device, N users of one
/// multi-user scale's slots, and N patients sharing a slot-less scale matched by weight band. No plan, so the
/// figures are routing plus the insert.
let routingBenchmark = Benchmark(
    name: "routing",
    summary: "samples/s through patient routing: 1 patient vs N owners, N slots, N sharing by weight band"
) {
    let count = 100_000
    print("  \(count) samples per row, batches of 1,000, release build; wall (CPU) time")
    let baseline = try await routingRow(patients: 1, count: count, layout: .ownDevices)
    print(String(format: "  1 patient (only patient)       %8.0f samples/s (%8.0f CPU)", baseline.wall, baseline.cpu))
    for (layout, sizes) in [
        (RoutingLayout.ownDevices, [10, 100, 1_000]), (.slots, [4, 8]), (.sharedScale, [2, 8]),
    ] {
        for patients in sizes {
            let row = try await routingRow(patients: patients, count: count, layout: layout)
            print(
                String(
                    format: "  %4d patients, %@ %8.0f samples/s (%8.0f CPU), %.2f × 1 patient",
                    patients,
                    layout.label.padding(toLength: 17, withPad: " ", startingAt: 0),
                    row.wall,
                    row.cpu,
                    row.wall / baseline.wall
                )
            )
        }
    }
}

enum RoutingLayout {
    /// Each patient owns a device (a ward's cuffs): `devices assign DEVICE PATIENT`.
    case ownDevices
    /// One multi-user scale, one slot per patient: `devices assign SCALE --slot N PATIENT`.
    case slots
    /// One slot-less scale shared by every patient, each with a reference weight 10 kg from the next.
    case sharedScale

    var label: String {
        switch self {
        case .ownDevices: "own device each"
        case .slots: "one scale's slots"
        case .sharedScale: "shared by weight"
        }
    }
}

/// Stores `count` samples routed as `layout` says; returns samples per wall and CPU second.
func routingRow(patients: Int, count: Int, layout: RoutingLayout) async throws -> (wall: Double, cpu: Double) {
    let directory = try benchmarkDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let quiet = Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }
    let zone = TimeZone(identifier: "Europe/Berlin")!
    let store = try CareStore(
        path: directory.appendingPathComponent("store.sqlite").path,
        bridgeZone: zone,
        logger: quiet
    )
    let ids = (0..<patients).map { String(format: "p%04d", $0) }
    for id in ids { try await store.savePatient(Patient(id: id, name: id)) }
    func address(_ index: Int) -> String { String(format: "C8:47:8C:00:%02X:%02X", index / 256, index % 256) }
    let scale = "C8:47:8C:FF:FF:01"
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    if patients > 1 {
        for (index, id) in ids.enumerated() {
            switch layout {
            case .ownDevices: try await store.assignDevice(address(index), to: id)
            case .slots: try await store.assignDevice(scale, slot: index + 1, to: id)
            case .sharedScale:
                try await store.assignDevice(scale, to: id, shared: true)
                // Five reference weigh-ins each, filed explicitly, the day before.
                let references = (0..<5).map { day in
                    routingSample(
                        .bodyMass,
                        60 + 10 * Double(index),
                        at: start.addingTimeInterval(-86_400 * Double(day + 1) - Double(index)),
                        device: scale,
                        slot: nil
                    )
                }
                try await store.scoped(to: id).recordSamples(references)
            }
        }
    }
    var samples: [QuantitySample] = []
    samples.reserveCapacity(count)
    for index in 0..<count {
        let patient = index % patients
        let time = start.addingTimeInterval(Double(index))
        switch layout {
        case .ownDevices:
            samples.append(routingSample(.heartRate, 60 + Double(index % 40), at: time, device: address(patient)))
        case .slots:
            samples.append(routingSample(.bodyMass, 70, at: time, device: scale, slot: patient + 1))
        case .sharedScale:
            samples.append(routingSample(.bodyMass, 60 + 10 * Double(patient) + 0.1, at: time, device: scale))
        }
    }
    let (wall, cpu) = try await measure {
        var offset = 0
        while offset < samples.count {
            let end = min(offset + 1_000, samples.count)
            try await store.recordSamples(Array(samples[offset..<end]))
            offset = end
        }
    }
    // Every sample reached a patient: routing that sent them to the inbox would measure the wrong path.
    let inbox = try await store.unassignedCount()
    guard inbox == 0 else {
        throw BenchmarkFailure(description: "routing \(layout) with \(patients) patients: \(inbox) in the inbox")
    }
    return (Double(count) / wall, Double(count) / cpu)
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
}

func routingSample(
    _ type: QuantityType,
    _ value: Double,
    at time: Date,
    device: String,
    slot: Int? = nil
)
    -> QuantitySample
{
    QuantitySample(
        type: type,
        value: value,
        unit: type.canonicalUnit,
        start: time,
        source: SampleSource(kind: .device, decoder: "bench", device: DeviceIdentity(address: device)),
        receivedAt: time,
        rawPayload: [UInt8(truncatingIfNeeded: Int(value))],
        metadata: slot.map { ["userID": String($0)] } ?? [:]
    )
}
