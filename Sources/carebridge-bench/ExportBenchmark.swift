import BridgeCore
import BridgeFoundation
import Foundation
import GATTDecoding
import SampleExport

#if canImport(Glibc)
import Glibc
#endif

/// Export throughput to /dev/null and peak memory, at 100k and 1M samples, FHIR and CSV.
///
/// Each run happens in a child process (`carebridge-bench export-run FORMAT COUNT`) so that its peak resident
/// size (`ru_maxrss`) is its own: a streaming writer shows about the same peak at 100k and 1M samples.
let exportBenchmark = Benchmark(
    name: "export",
    summary: "export samples to FHIR and CSV (/dev/null): samples/s, peak RSS"
) {
    print("The machine is shared: wall-clock figures include waiting for a core; CPU s is this process's own time.")
    print("format           samples   wall s   samples/s  CPU s  samples/CPU-s  output MB  peak RSS MB")
    for format in ["fhir", "csv", "fhir-transaction"] {
        for count in [100_000, 1_000_000] {
            print(try runBenchmarkChild(["export-run", format, String(count)]), terminator: "")
        }
    }
}

/// One measured run in this process; prints one table row.
func runExport(format: String, count: Int) throws {
    let zone = TimeZone(identifier: "Europe/Berlin")!
    let sink = try FileSink(path: "/dev/null")
    let write: ExportSink = { try sink.append($0) }
    let writer: any SampleWriter =
        switch format {
        case "csv": CSVWriter(timeZone: zone, sink: write)
        case "fhir-transaction":
            FHIRBundleWriter(
                options: .init(bundleType: .transaction, subject: "Patient/bench", timeZone: zone),
                sink: write
            )
        default: FHIRBundleWriter(options: .init(subject: "Patient/bench", timeZone: zone), sink: write)
        }
    let devices = (0..<4).map { index in
        SampleSource(
            kind: .device,
            characteristic: BluetoothUUID(0x2A35),
            decoder: "bench",
            device: DeviceIdentity(address: "A4:C1:38:00:00:0\(index)", name: "Device \(index)", model: "M\(index)")
        )
    }
    let base = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z
    let types: [QuantityType] = [
        .bodyMass, .heartRate, .bloodPressureSystolic, .bloodPressureDiastolic, .bodyTemperature,
    ]
    let clock = ContinuousClock()
    var summary = ExportSummary()
    let elapsed = try clock.measure {
        // Samples are made one at a time, as a store cursor would hand them over: nothing is kept.
        for index in 0..<count {
            let reading = index / 5
            let type = types[index % 5]
            let at = base.addingTimeInterval(Double(reading) * 60)
            let value: Double =
                switch type {
                case .bodyMass: 60 + Double(reading % 400) / 10
                case .heartRate: Double(50 + reading % 60)
                case .bloodPressureSystolic: Double(100 + reading % 50)
                case .bloodPressureDiastolic: Double(60 + reading % 30)
                default: 36 + Double(reading % 20) / 10
                }
            let sample = QuantitySample(
                type: type,
                value: value,
                unit: type.canonicalUnit,
                start: at,
                source: devices[reading % devices.count],
                receivedAt: at,
                rawPayload: [UInt8(truncatingIfNeeded: reading), UInt8(truncatingIfNeeded: reading >> 8), 7]
            )
            // One SHA-256 per sample (in the initialiser), the id then carried: what a sample costs by the time
            // it reaches the writer (derived once by the pipeline; read back from the store's id column since #10).
            try writer.write(
                ExportRecord(
                    sample: sample,
                    matches: index % 3 == 0 ? [EventMatch(task: "daily", occurrence: reading)] : []
                )
            )
        }
        summary = try writer.finish()
        try sink.close()
    }
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let peakMB = Double(usage.ru_maxrss) / 1024  // ru_maxrss is in KiB on Linux
    let cpu = processCPUSeconds()
    let row = [
        format.padding(toLength: 16, withPad: " ", startingAt: 0),
        String(format: "%8d", count),
        String(format: "%8.2f", seconds),
        String(format: "%11.0f", Double(count) / seconds),
        String(format: "%6.2f", cpu),
        String(format: "%14.0f", Double(count) / cpu),
        String(format: "%10.1f", Double(sink.byteCount) / 1e6),
        String(format: "%12.1f", peakMB),
        "  (\(summary.resources) items)",
    ]
    print(row.joined(separator: " "))
}
