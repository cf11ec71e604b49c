// Benchmarks that print figures. Build and run in release:
//   swift run -c release carebridge-bench            # all
//   swift run -c release carebridge-bench decode     # one
// Each benchmark lives in its own file and registers itself in `benchmarks` below.

import Foundation

/// A named benchmark; `run` prints its own figures.
struct Benchmark: Sendable {
    var name: String
    var summary: String
    var run: @Sendable () async throws -> Void
}

let benchmarks: [Benchmark] = [
    decodeBenchmark,
    scheduleBenchmark,
    storeIngestBenchmark,
    storeQueryBenchmark,
    replayBenchmark,
    storeDayBenchmark,
    storeMigrateBenchmark,
    retentionBenchmark,
    blueZLatencyBenchmark,
    exportBenchmark,
    growthBenchmark,
    routingBenchmark,
    careAppBenchmark,
    hubBenchmark,
]

// Child process of the replay benchmark: `carebridge-bench --replay-child HOURS`.
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--replay-child",
    let hours = Int(CommandLine.arguments[2])
{
    try await runReplayChild(hours: hours)
    exit(0)
}

// Server of the care app benchmark: `carebridge-bench --care-app-child STORE`.
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--care-app-child" {
    try await runCareAppChild(storePath: CommandLine.arguments[2])
    exit(0)
}

// The hub of the hub benchmark: `carebridge-bench --hub-child DATABASE PASSWORD-FILE [CERT KEY]`.
if CommandLine.arguments.count >= 4, CommandLine.arguments[1] == "--hub-child" {
    try await runHubChild(arguments: Array(CommandLine.arguments.dropFirst(2)))
    exit(0)
}

// The hub benchmark with options: `carebridge-bench hub [--bridges 100,300,1000] … [--json]` (HubBenchmarkOptions).
if CommandLine.arguments.count >= 3, CommandLine.arguments[1] == "hub" {
    do {
        let options = try HubBenchmarkOptions(parsing: Array(CommandLine.arguments.dropFirst(2)))
        #if DEBUG
        FileHandle.standardError.write(Data("warning: debug build; figures are meaningful only with -c release\n".utf8))
        #endif
        try await runHubBenchmark(options)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("carebridge-bench hub: \(error)\n".utf8))
        exit(error is HubBenchmarkOptions.Failure ? 64 : 1)
    }
}

// Child process of the store-day benchmark: `carebridge-bench --store-day-child HOURS`.
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--store-day-child",
    let hours = Int(CommandLine.arguments[2])
{
    try await runStoreDayChild(hours: hours)
    exit(0)
}

// Child process of the growth benchmark's replay-memory row: `carebridge-bench --replay-tasks-child TASKS`.
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--replay-tasks-child",
    let tasks = Int(CommandLine.arguments[2])
{
    try await runReplayTasksChild(tasks: tasks)
    exit(0)
}

// A store of heart-rate history to enable the hub channel on (see HeartRateHistoryStore.swift):
// `carebridge-bench --heart-rate-store DAYS PATH`.
if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "--heart-rate-store",
    let days = Int(CommandLine.arguments[2])
{
    try await writeHeartRateStore(days: days, path: CommandLine.arguments[3])
    exit(0)
}

// A child run of the export benchmark, measured in its own process (see ExportBenchmark.swift).
if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "export-run", let count = Int(CommandLine.arguments[3])
{
    try runExport(format: CommandLine.arguments[2], count: count)
    exit(0)
}

// Inside the real-bluetoothd test tier's guest (see RealBlueZLatency.swift).
if CommandLine.arguments.count == 5, CommandLine.arguments[1] == "--real-bluez-latency",
    let count = Int(CommandLine.arguments[4])
{
    try await runRealBlueZLatency(adapter: CommandLine.arguments[2], sentFile: CommandLine.arguments[3], count: count)
    exit(0)
}

let requested = Set(CommandLine.arguments.dropFirst())
if requested.contains("--help") || requested.contains("-h") {
    print("usage: carebridge-bench [NAME…]\n")
    for benchmark in benchmarks {
        print("  \(benchmark.name.padding(toLength: 12, withPad: " ", startingAt: 0)) \(benchmark.summary)")
    }
    exit(0)
}
let unknown = requested.subtracting(benchmarks.map(\.name))
if !unknown.isEmpty {
    FileHandle.standardError.write(
        Data("carebridge-bench: unknown benchmark(s) \(unknown.sorted().joined(separator: ", "))\n".utf8)
    )
    exit(64)
}
#if DEBUG
print("warning: debug build; figures are meaningful only with -c release")
#endif
for benchmark in benchmarks where requested.isEmpty || requested.contains(benchmark.name) {
    print("== \(benchmark.name): \(benchmark.summary)")
    try await benchmark.run()
}
