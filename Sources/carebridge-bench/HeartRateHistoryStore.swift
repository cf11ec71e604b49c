import BridgeCore
import BridgeFoundation
import CareStore
import Foundation
import Logging
import TestSupport

/// `carebridge-bench --heart-rate-store DAYS PATH`: writes a store at `PATH` holding `DAYS` days of one chest
/// strap's heart rate at 1 Hz (86,400 samples a day), an hour per transaction recorded at the hour's end, as a
/// bridge stores a strap's stream. The store a hub channel is first enabled on when measuring what queueing a
/// bridge's history costs (Sources/carebridge-bench/README.md, "Queueing a bridge's history for the hub").
func writeHeartRateStore(days: Int, path: String) async throws {
    let logger = Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }
    let store = try CareStore(path: path, bridgeZone: TimeZone(identifier: "Europe/Berlin")!, logger: logger)
    let source = SampleSource(
        kind: .device,
        characteristic: BluetoothUUID(0x2A37),
        decoder: "heart-rate-measurement",
        device: DeviceIdentity(address: "C8:47:8C:00:00:07")
    )
    let first = Date(timeIntervalSince1970: 1_795_158_000)
    var generator = SplitMix64(seed: 27)
    var stored = 0
    for hour in 0..<(days * 24) {
        var samples: [QuantitySample] = []
        samples.reserveCapacity(3600)
        for second in 0..<3600 {
            let at = first.addingTimeInterval(Double(hour * 3600 + second))
            let bpm = 55 + generator.next() % 40
            samples.append(
                QuantitySample(
                    type: .heartRate,
                    value: Double(bpm),
                    unit: .perMinute,
                    start: at,
                    source: source,
                    receivedAt: at,
                    rawPayload: [0x06, UInt8(bpm)]
                )
            )
        }
        let report = try await store.recordSamples(
            samples,
            recordedAt: first.addingTimeInterval(Double((hour + 1) * 3600))
        )
        stored += report.inserted
    }
    try store.finishPendingAccess()
    print("\(stored) heart-rate samples over \(days) days in \(path)")
}
