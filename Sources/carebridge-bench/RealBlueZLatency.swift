import BlueZTransport
import BridgeCore
import CarePlan
import CareStore
import DeviceProfiles
import Foundation
import GATTDecoding
import Logging
import SampleIngest

/// Notification → completed event against the real bluetoothd: run inside the QEMU guest of the real-daemon
/// test tier (Tests/RealBlueZTests), with a heart-rate simulator on another controller writing the wall-clock
/// time of every notification it hands to bluetoothd into its `--sent` file.
///
///   carebridge-bench --real-bluez-latency ADAPTER SENT-FILE COUNT
///
/// Runs the live path on the system bus (BlueZTransport, the pipeline, a CareStore on disk with a plan linking
/// heart rate), stamps the commit of every sample (`TimingSink`), waits for COUNT notifications and matches
/// them by payload with the simulator's send times.
func runRealBlueZLatency(adapter: String, sentFile: String, count: Int) async throws {
    let logger = Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }
    let zone = TimeZone(identifier: "UTC")!
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latency-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    var configuration = BlueZConfiguration()
    configuration.adapter = adapter
    let bridge = try await TimedHeartRateBridge.start(
        configuration: configuration,
        zone: zone,
        directory: directory,
        logger: logger
    )
    let sink = bridge.sink
    print("real-bluez-latency: waiting for \(count) notifications on \(adapter)")
    let deadline = Date().addingTimeInterval(600)
    while await sink.count < count, Date() < deadline {
        try await Task.sleep(for: .milliseconds(200))
    }
    let committed = await sink.committed
    await bridge.stop()

    // What the simulator sent: {"kind": "notification", "value": hex, "wall": seconds since 1970} per line.
    var sent: [(payload: String, wall: Double)] = []
    for line in try String(contentsOfFile: sentFile, encoding: .utf8).split(separator: "\n") {
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            object["kind"] as? String == "notification", let value = object["value"] as? String,
            let wall = (object["wall"] as? NSNumber)?.doubleValue
        else { continue }
        sent.append((value, wall))
    }
    var latencies = sent.compactMap { entry in
        committed[entry.payload].map { ($0.timeIntervalSince1970 - entry.wall) * 1000 }
    }
    latencies.sort()
    guard !latencies.isEmpty else { throw BenchError(description: "no notification reached the store") }
    func percentile(_ p: Double) -> Double { latencies[min(latencies.count - 1, Int(Double(latencies.count - 1) * p))] }
    print("notifications sent: \(sent.count), stored: \(latencies.count), lost: \(sent.count - latencies.count)")
    print(
        String(
            format: "latency ms: median %.1f  p90 %.1f  p99 %.1f  max %.1f",
            percentile(0.5),
            percentile(0.9),
            percentile(0.99),
            latencies.last!
        )
    )
}
