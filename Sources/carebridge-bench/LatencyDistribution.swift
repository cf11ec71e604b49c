/// Latencies in seconds, sorted once, read as percentiles (nearest rank).
struct LatencyDistribution: Sendable {
    let sorted: [Double]

    init(_ seconds: [Double]) { sorted = seconds.sorted() }

    var count: Int { sorted.count }

    /// The latency `fraction` of the measurements are at or below (0 when there are none).
    func percentile(_ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((Double(sorted.count) * fraction).rounded(.up))
        return sorted[min(sorted.count, max(rank, 1)) - 1]
    }

    var median: Double { percentile(0.5) }
    var maximum: Double { sorted.last ?? 0 }
}
