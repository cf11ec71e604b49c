import BridgeCore
import Foundation
import GATTDecoding

// timespec: with CareHub's dependencies in the graph, its members resolve through CoreFoundation's module.
#if canImport(CoreFoundation)
import CoreFoundation
#endif

/// Decode + normalise throughput for Weight Measurement with every field and for Heart Rate Measurement with
/// RR intervals.
let decodeBenchmark = Benchmark(name: "decode", summary: "decode + normalise payloads per second, one core") {
    // flags 0x0E: SI, time stamp, user, BMI + height; 72.5 kg, 2024-03-15 07:30:00, user 5, BMI 28.0, 1.744 m
    let weight: [UInt8] = [0x0E, 0xA4, 0x38, 0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00, 0x05, 0x18, 0x01, 0xD0, 0x06]
    try measureDecode("Weight Measurement (all fields)", WeightMeasurement.self, payload: weight)
    // flags 0x16: uint8 HR, contact detected, RR present; 72 bpm; RR 832 and 845 (1/1024 s) → 3 samples
    let heartRate: [UInt8] = [0x16, 0x48, 0x40, 0x03, 0x4D, 0x03]
    try measureDecode("Heart Rate Measurement (2 RR intervals)", HeartRateMeasurement.self, payload: heartRate)
}

/// Decodes `payload` and makes its samples `iterations` times, then prints payloads per second.
private func measureDecode<Payload: SampleProducing>(
    _ label: String,
    _ type: Payload.Type,
    payload: [UInt8],
    iterations: Int = Int(ProcessInfo.processInfo.environment["BENCH_PAYLOADS"] ?? "") ?? 2_000_000
) throws {
    let zone = TimeZone(identifier: "Europe/Berlin")!
    let source = SampleSource.device(Payload.self)
    let received = Date()
    var samples = 0
    var fields = 0
    // Decode only: the decoder's own cost.
    let decodeCPU = threadCPUSeconds()
    for _ in 0..<iterations {
        blackHole(try Payload.decode(payload))
        fields &+= 1
    }
    let decodeSeconds = threadCPUSeconds() - decodeCPU
    // Decode + normalise: what the pipeline pays per payload.
    let clock = ContinuousClock()
    let startCPU = threadCPUSeconds()
    // Samples are appended to one reused buffer, counted and emptied every 4,096 samples: the hot-path form
    // (`appendSamples(in:to:)`), in which a caller collecting a batch makes no array per payload.
    let batchCapacity = 4096
    var batch: [SampleDraft] = []
    batch.reserveCapacity(batchCapacity + 16)
    let elapsed = try clock.measure {
        for _ in 0..<iterations {
            let context = SampleContext(receivedAt: received, timeZone: zone, source: source, payload: payload)
            try Payload.decode(payload).appendSamples(in: consume context, to: &batch)
            if batch.count >= batchCapacity {
                samples &+= batch.count
                batch.removeAll(keepingCapacity: true)
            }
        }
        samples &+= batch.count
        batch.removeAll(keepingCapacity: true)
    }
    let cpuSeconds = threadCPUSeconds() - startCPU
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    print(
        "\(label): \(iterations) payloads, \(samples) samples in "
            + String(format: "%.3f s → %.2f M payloads/s", seconds, Double(iterations) / seconds / 1e6)
            + String(
                format: " (CPU time %.3f s → %.2f M/s per core;",
                cpuSeconds,
                Double(iterations) / cpuSeconds / 1e6
            )
            + String(format: " decode only %.2f M/s)", Double(iterations) / decodeSeconds / 1e6)
    )
    _ = fields
}

/// CPU time this thread has used, so figures on a shared machine are per core rather than per wall second.
private func threadCPUSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

/// Keeps a value alive so the optimiser cannot drop the work that made it.
@inline(never)
private func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
