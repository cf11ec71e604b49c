import BridgeFoundation
import CareHub
import Foundation
import Logging
import PostgresNIO
import TestSupport

/// The hub under a fleet (issue #27): for 100, 300 and 1,000 bridges, a fresh PostgreSQL (TestSupport's
/// ``PostgresServer``), the hub's ``HubServer`` in a child process over HTTPS on loopback, every bridge enrolled
/// with its own token and patient, and every bridge posting a day of readings (one in a hundred a day of 1 Hz heart
/// rate) through ``HubClient``, 64 bridges at a time. Figures: sustained inserts/s, batch round trip p50/p99, and
/// the dashboard's queries afterwards (`hub status`'s, and each patient's latest reading of each kind); then a
/// check that every reading arrived exactly once, in its bridge's order, for its patient, on its day.
let hubBenchmark = Benchmark(
    name: "hub",
    summary: "hub: 100, 300 and 1,000 bridges sync a day each into PostgreSQL; inserts/s, p99, dashboard queries"
) {
    try await runHubBenchmark(HubBenchmarkOptions())
}

/// Runs every fleet size of `options`; figures on stdout (a table, or JSON with `--json`), progress on stderr.
func runHubBenchmark(_ options: HubBenchmarkOptions) async throws {
    let directory = try benchmarkDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    var all: [HubBenchmarkFigures] = []
    if !options.json {
        print(
            "\(options.tls ? "HTTPS" : "plain HTTP") on loopback, PostgreSQL fsync \(options.durable ? "on" : "off"), "
                + "\(options.concurrency) bridges at a time, \(options.batchSize) readings per batch"
        )
        print(
            "bridges  hr  readings  batches  seconds  inserts/s  p50 ms  p99 ms  max ms  retries  status ms  "
                + "latest ms  hub MB  exactly-once"
        )
    }
    for size in options.sizes {
        let figures = try await HubBenchmarkRun(
            bridges: size,
            options: options,
            directory: directory.appendingPathComponent("\(size)")
        ).run()
        all.append(figures)
        if !options.json { print(figures.row) }
    }
    if options.json {
        print(JSONValue.array(all.map(\.json)).serialized(pretty: true))
    }
    if let failed = all.first(where: { !$0.problems.isEmpty }) {
        throw HubBenchmarkRun.Failure(
            description: "\(failed.bridges) bridges: \(failed.problems.joined(separator: "; "))"
        )
    }
}

/// Writes a progress line to stderr.
func hubProgress(_ line: String) {
    FileHandle.standardError.write(Data("hub: \(line)\n".utf8))
}
