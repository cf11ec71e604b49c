import Foundation
import TestSupport
import Testing

/// The hub benchmark's driver, in a debug build and not timed: a small fleet posts its day through the real hub
/// over HTTPS to a real PostgreSQL, and every reading lands exactly once, in its bridge's order, for its patient.
@Suite struct HubBenchmarkDriverTests {
    /// `carebridge-bench`, built next to `carebridge` (the test target depends on it).
    var benchmarkExecutable: URL {
        PackageRoot.carebridgeExecutable.deletingLastPathComponent().appendingPathComponent("carebridge-bench")
    }

    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func threeBridgesDayArrivesExactlyOnceInOrder() async throws {
        // Two spot bridges (15 readings, one batch each) and one with ten minutes of 1 Hz heart rate (600 readings
        // in batches of 100).
        let run = try await ChildProcess.run(
            benchmarkExecutable,
            [
                "hub", "--bridges", "3", "--heart-rate-bridges", "1", "--heart-rate-seconds", "600", "--batch-size",
                "100", "--concurrency", "3", "--json",
            ]
        )
        #expect(run.status == 0, "\(run.standardError)")
        let figures = try #require(
            try JSONSerialization.jsonObject(with: run.stdout) as? [[String: Any]],
            "\(run.standardOutput)\n\(run.standardError)"
        )
        let fleet = try #require(figures.first)
        #expect(figures.count == 1)
        #expect(fleet["bridges"] as? Int == 3)
        #expect(fleet["heartRateBridges"] as? Int == 1)
        #expect(fleet["readings"] as? Int == 2 * 15 + 600, "every reading confirmed once")
        #expect(fleet["batches"] as? Int == 2 + 6)
        #expect(fleet["exactlyOnce"] as? Bool == true, "\(fleet["problems"] ?? "")")
        // Each patient's latest reading of each kind: the spot bridges' 7 kinds, the heart-rate bridge's one.
        #expect(fleet["latestReadingsRows"] as? Int == 2 * 7 + 1)
        #expect(run.standardError.contains("3/3 bridges done"), "progress goes to stderr: \(run.standardError)")
    }
}
