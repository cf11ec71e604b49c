import BridgeFoundation
import Foundation

/// What one fleet size of the hub benchmark measured.
struct HubBenchmarkFigures: Sendable {
    var bridges: Int
    var heartRateBridges: Int
    /// HTTPS between bridges and hub; PostgreSQL with fsync.
    var tls: Bool
    var durable: Bool
    var readings: Int
    var batches: Int
    var seconds: Double
    var latencies: LatencyDistribution
    var retries: Int
    /// `hub status`'s query, median of 5 (ms).
    var statusMilliseconds: Double
    /// Each patient's latest reading of each kind across all patients, median of 5 (ms).
    var latestMilliseconds: Double
    /// Rows the latest-readings query returned.
    var latestRows: Int
    /// The hub's resident memory after the run (MB).
    var hubMegabytes: Int
    /// What the exactly-once check found wrong (empty: every reading once, in order, for its patient and day).
    var problems: [String]

    var insertsPerSecond: Double { seconds > 0 ? Double(readings) / seconds : 0 }

    var row: String {
        [
            String(format: "%7d", bridges), String(format: "%3d", heartRateBridges), String(format: "%9d", readings),
            String(format: "%8d", batches), String(format: "%8.1f", seconds),
            String(format: "%10.0f", insertsPerSecond),
            String(format: "%7.1f", latencies.median * 1000),
            String(format: "%7.1f", latencies.percentile(0.99) * 1000),
            String(format: "%7.1f", latencies.maximum * 1000), String(format: "%8d", retries),
            String(format: "%10.1f", statusMilliseconds), String(format: "%10.1f", latestMilliseconds),
            String(format: "%7d", hubMegabytes),
            problems.isEmpty ? "  yes" : "  NO: \(problems.joined(separator: "; "))",
        ].joined(separator: " ")
    }

    var json: JSONValue {
        .object([
            "bridges": .int(bridges), "heartRateBridges": .int(heartRateBridges), "tls": .bool(tls),
            "fsync": .bool(durable), "readings": .int(readings),
            "batches": .int(batches), "seconds": .double(seconds), "insertsPerSecond": .double(insertsPerSecond),
            "batchP50Milliseconds": .double(latencies.median * 1000),
            "batchP99Milliseconds": .double(latencies.percentile(0.99) * 1000),
            "batchMaxMilliseconds": .double(latencies.maximum * 1000), "retries": .int(retries),
            "statusQueryMilliseconds": .double(statusMilliseconds),
            "latestReadingsQueryMilliseconds": .double(latestMilliseconds), "latestReadingsRows": .int(latestRows),
            "hubMegabytes": .int(hubMegabytes), "exactlyOnce": .bool(problems.isEmpty),
            "problems": .array(problems.map(JSONValue.string)),
        ])
    }
}
