import BridgeCore
import BridgeRuntime
import CarePlan
import CareStore
import DeviceProfiles
import Foundation
import Logging
import SampleIngest
import SessionReplay
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// End-to-end replay: a heart-rate strap recording (one notification per second with RR intervals) is
/// generated into a temporary file, then replayed through profiles, decoders, normalisation and the store
/// (with a plan whose tasks the samples complete). Each size runs in its own child process so that the peak
/// resident set size (VmHWM) belongs to that size alone.
let replayBenchmark = Benchmark(
    name: "replay",
    summary: "replay a 1 h and a 24 h heart-rate recording into a fresh store: notifications/s, peak memory"
) {
    var rows: [String] = []
    for hours in [1, 24, 72] {
        let output = try runBenchmarkChild(["--replay-child", String(hours)])
        rows.append(output.trimmingCharacters(in: .whitespacesAndNewlines))
    }
    print("hours  notifications  samples   seconds  CPU s  notifications/s  samples/s   peak RSS  pipeline-only s")
    for row in rows { print(row) }
}

/// One replay in this process (the child side of ``replayBenchmark``); prints one table row.
func runReplayChild(hours: Int) async throws {
    let logger = Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }
    let zone = TimeZone(identifier: "Europe/Berlin")!
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "carebridge-bench-\(UUID().uuidString)"
    )
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let recording = directory.appendingPathComponent("heart-rate-\(hours)h.jsonl").path
    let notifications = hours * 3600
    try SyntheticHeartRateSession(
        device: "02:00:00:00:00:05",
        recordedAt: Date(timeIntervalSince1970: 1_795_158_000),
        timeZone: zone,
        notifications: notifications
    ).write(to: recording)

    let store = try CareStore(
        path: directory.appendingPathComponent("store.sqlite").path,
        bridgeZone: zone,
        logger: logger
    )
    let plan = """
        {"tasks": [
          {"id": "resting-heart-rate", "title": "Resting heart rate", "kind": "assessment",
           "schedule": {"timeZone": "Europe/Berlin", "elements": [{"start": "2026-11-01T00:00:00", "interval": {"days": 1}, "duration": "allDay"}]},
           "linkage": {"type": "heartRate", "unit": "/min", "aggregation": "min"}},
          {"id": "weigh-in", "title": "Weigh yourself", "kind": "assessment",
           "schedule": {"timeZone": "Europe/Berlin", "elements": [{"start": "2026-11-01T00:00:00", "interval": {"days": 1}, "duration": "allDay"}]},
           "linkage": {"type": "bodyMass", "unit": "kg", "aggregation": "first"}}
        ]}
        """
    try await store.applyPlan(try CarePlanDocument.parse(Data(plan.utf8), path: "bench-plan.json", bridgeZone: zone))
    let catalog = DeviceProfileLoader.loadDefault().catalog
    guard catalog.profile(id: "heart-rate") != nil else {
        FileHandle.standardError.write(Data("carebridge-bench: Devices/ not found next to the executable\n".utf8))
        exit(66)
    }

    let clock = ContinuousClock()
    // The pipeline alone (read, parse, claim, decode, normalise; samples discarded), for attribution.
    let pipelineOnly = try await clock.measure {
        _ = try await PipelineRunner.replay(
            try ReplayTransport(path: recording, logger: logger),
            catalog: catalog,
            configuration: PipelineConfiguration(timeZone: zone),
            sink: DiscardingSink(),
            logger: logger
        )
    }
    var report = PipelineReport()
    let cpuBefore = processCPUSeconds()
    let elapsed = try await clock.measure {
        report = try await PipelineRunner.replay(
            try ReplayTransport(path: recording, logger: logger),
            catalog: catalog,
            configuration: PipelineConfiguration(timeZone: zone),
            sink: CareStoreSink(store: store, recordedAt: Date()),
            batchSize: Int(ProcessInfo.processInfo.environment["BENCH_BATCH"] ?? "") ?? PipelineRunner.defaultBatchSize,
            logger: logger
        )
    }
    func toSeconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
    let seconds = toSeconds(elapsed)
    let cpu = processCPUSeconds() - cpuBefore
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    // VmHWM is this process image's own peak (ru_maxrss survives exec, so it would include the parent's peak
    // when another benchmark ran first); ru_maxrss where /proc is not available.
    let peakMB = (peakResidentKilobytes() ?? Double(usage.ru_maxrss)) / 1024
    print(
        String(
            format: "%5d  %13d  %7d  %8.2f  %5.2f  %15.0f  %9.0f  %6.1f MB  %14.2f",
            hours,
            notifications,
            report.samples,
            seconds,
            cpu,
            Double(notifications) / seconds,
            Double(report.samples) / seconds,
            peakMB,
            toSeconds(pipelineOnly)
        )
    )
}

/// `VmHWM` from /proc/self/status, in KiB.
func peakResidentKilobytes() -> Double? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return Double(line.dropFirst(6).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
    }
    return nil
}
