import BridgeCore
import Foundation
import GATTDecoding

/// Decode + normalise throughput for Weight Measurement with every field.
/// (Heart Rate Measurement with RR intervals is added with its decoder.)
let decodeBenchmark = Benchmark(name: "decode", summary: "decode + normalise payloads per second, one core") {
    let zone = TimeZone(identifier: "Europe/Berlin")!
    let weight: [UInt8] = [0x0E, 0xA4, 0x38, 0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00, 0x05, 0x18, 0x01, 0xD0, 0x06]
    let source = SampleSource.device(WeightMeasurement.self)
    let received = Date()
    let iterations = 2_000_000
    var samples = 0
    let clock = ContinuousClock()
    let elapsed = try clock.measure {
        for _ in 0..<iterations {
            let context = SampleContext(receivedAt: received, timeZone: zone, source: source, payload: weight)
            samples &+= try WeightMeasurement.decode(weight).samples(in: context).count
        }
    }
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    print(
        "Weight Measurement (all fields): \(iterations) payloads, \(samples) samples in "
            + String(format: "%.3f s → %.2f M payloads/s", seconds, Double(iterations) / seconds / 1e6)
    )
}
