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

/// Peak memory of a replay into a store with many heart-rate-linked tasks, at n and 4n tasks: each size in its own
/// child process (`carebridge-bench --replay-tasks-child TASKS`), so that its peak resident size is its own.
func replayTasksMemoryRow(_ sizes: [Int]) throws {
    var beforeReplay: [Double] = []
    var peaks: [Double] = []
    var seconds: [Double] = []
    for tasks in sizes {
        let output = try runBenchmarkChild(["--replay-tasks-child", String(tasks)])
        let fields = output.split(whereSeparator: \.isWhitespace)
        guard fields.count == 3, let before = Double(fields[0]), let peak = Double(fields[1]),
            let cpu = Double(fields[2])
        else {
            throw NSError(domain: "carebridge-bench: unexpected child output", code: 1)
        }
        beforeReplay.append(before)
        peaks.append(peak)
        seconds.append(cpu)
    }
    var figures: [String] = []
    for index in sizes.indices {
        figures.append(
            String(
                format: "n=%d peak %.1f MB (%.1f MB before the replay), %.2f s CPU",
                sizes[index],
                peaks[index],
                beforeReplay[index],
                seconds[index]
            )
        )
    }
    let perTask = (peaks.last! - peaks.first!) * 1024 / Double(sizes.last! - sizes.first!)
    let replayShare =
        (peaks.last! - beforeReplay.last! - peaks.first! + beforeReplay.first!) * 1024
        / Double(sizes.last! - sizes.first!)
    print(
        "replay of a 1 h heart-rate recording, n heart-rate-linked tasks: \(figures.joined(separator: "; "));"
            + String(format: " %.1f KB peak per added task, %.1f KB of it during the replay", perTask, replayShare)
    )
}

/// One replay in this process (the child side of ``replayTasksMemoryRow(_:)``): a store with `tasks` daily all-day
/// assessments linked to heart rate (`min`), a 1-hour heart-rate recording (3,600 notifications with RR
/// intervals) replayed into it. Prints the peak resident size in MB and the process CPU seconds.
func runReplayTasksChild(tasks: Int) async throws {
    let logger = Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }
    let zone = TimeZone(identifier: "Europe/Berlin")!
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "carebridge-bench-\(UUID().uuidString)"
    )
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let recording = directory.appendingPathComponent("heart-rate-1h.jsonl").path
    try SyntheticHeartRateSession(
        device: "02:00:00:00:00:05",
        recordedAt: Date(timeIntervalSince1970: 1_795_158_000),
        timeZone: zone,
        notifications: 3600
    ).write(to: recording)
    let store = try CareStore(
        path: directory.appendingPathComponent("store.sqlite").path,
        bridgeZone: zone,
        logger: logger
    )
    let start = WallClockTime(year: 2026, month: 11, day: 1)
    let plan = CarePlanDocument(
        tasks: (0..<tasks).map { index in
            CareTask(
                id: "heart-rate-\(index)",
                title: "Resting heart rate \(index)",
                kind: .assessment,
                schedule: .daily(hour: 0, start: start, duration: .allDay, timeZone: .fixed("Europe/Berlin")),
                linkage: SampleLinkage(type: .heartRate, unit: .perMinute, aggregation: .min)
            )
        }
    )
    try await store.applyPlan(plan)
    let beforeReplayMB = (residentKilobytes(field: "VmRSS:") ?? 0) / 1024
    let catalog = DeviceProfileLoader.loadDefault().catalog
    guard catalog.profile(id: "heart-rate") != nil else {
        FileHandle.standardError.write(Data("carebridge-bench: Devices/ not found next to the executable\n".utf8))
        exit(66)
    }
    let cpuBefore = processCPUSeconds()
    let report = try await PipelineRunner.replay(
        try ReplayTransport(path: recording, logger: logger),
        catalog: catalog,
        configuration: PipelineConfiguration(timeZone: zone),
        sink: CareStoreSink(store: store, recordedAt: Date()),
        logger: logger
    )
    let cpu = processCPUSeconds() - cpuBefore
    precondition(report.samples > 3600)
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let peakMB = (peakResidentKilobytes() ?? Double(usage.ru_maxrss)) / 1024
    print(String(format: "%.1f %.1f %.2f", beforeReplayMB, peakMB, cpu))
}

/// A `Vm…:` line of /proc/self/status (`VmRSS:` now, `VmHWM:` the peak), in KiB.
func residentKilobytes(field: String) -> Double? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix(field) {
        return Double(
            line.dropFirst(field.count).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? ""
        )
    }
    return nil
}
