import BridgeCore
import BridgeRuntime
import CarePlan
import CareStore
import DeviceProfiles
import Foundation
import GRDB
import Logging
import SampleIngest
import SessionReplay
import TestSupport

/// A year of daily strap wear (issue #17): a 24-hour 1 Hz heart-rate day (heart rate + RR intervals) is
/// replayed into a store and measured after `VACUUM`, then vacuumed under a retention policy (raw heart rate 90
/// days, raw RR intervals 30 days, then 1-minute aggregates) and measured again; the year is projected from the
/// two days: without retention 365 raw days; with it 90 raw days of heart rate and 30 of RR intervals, the rest
/// as aggregates. Each type's share of a day is its share (by rows) of the tables that hold it. Also the
/// vacuum's own speed.
let retentionBenchmark = Benchmark(
    name: "retention",
    summary: "a year of daily heart-rate strap wear: projected store size with and without retention; vacuum speed"
) {
    try await runRetentionBenchmark()
}

func runRetentionBenchmark() async throws {
    let logger = Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }
    let zone = TimeZone(identifier: "Europe/Berlin")!
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "carebridge-bench-\(UUID().uuidString)"
    )
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let day = Date(timeIntervalSince1970: 1_795_158_000)
    let recording = directory.appendingPathComponent("heart-rate-24h.jsonl").path
    try SyntheticHeartRateSession(device: "02:00:00:00:00:05", recordedAt: day, timeZone: zone, notifications: 86_400)
        .write(to: recording)
    let plan = """
        {"tasks": [
          {"id": "resting-heart-rate", "title": "Resting heart rate", "kind": "assessment",
           "schedule": {"timeZone": "Europe/Berlin", "elements": [{"start": "2026-11-01T00:00:00", "interval": {"days": 1}, "duration": "allDay"}]},
           "linkage": {"type": "heartRate", "unit": "/min", "aggregation": "min"}}
        ],
         "retention": {"heartRate": {"keepRawDays": 90}, "rrInterval": {"keepRawDays": 30}}}
        """
    let document = try CarePlanDocument.parse(Data(plan.utf8), path: "bench-plan.json", bridgeZone: zone)
    let catalog = DeviceProfileLoader.loadDefault().catalog
    guard catalog.profile(id: "heart-rate") != nil else {
        FileHandle.standardError.write(Data("carebridge-bench: Devices/ not found next to the executable\n".utf8))
        exit(66)
    }

    // The fixed part: a store with the plan and no samples.
    let emptyPath = directory.appendingPathComponent("empty.sqlite").path
    let empty = try CareStore(path: emptyPath, bridgeZone: zone, logger: logger)
    try await empty.applyPlan(document)
    let emptyBytes = try await empty.compactFile(path: emptyPath).after

    let storePath = directory.appendingPathComponent("store.sqlite").path
    let store = try CareStore(path: storePath, bridgeZone: zone, logger: logger)
    try await store.applyPlan(document)
    _ = try await PipelineRunner.replay(
        try ReplayTransport(path: recording, logger: logger),
        catalog: catalog,
        configuration: PipelineConfiguration(timeZone: zone),
        sink: CareStoreSink(store: store, recordedAt: day),
        logger: logger
    )
    let rawBytes = try await store.compactFile(path: storePath).after
    let before = try await store.statistics(now: day)
    let samples = before.types.reduce(0) { $0 + $1.samples }

    let clock = ContinuousClock()
    var steps: [RetentionStep] = []
    let vacuumed = try await clock.measure {
        steps = try await store.applyRetention(now: day.addingTimeInterval(400 * 86_400))
    }
    let aggregatedBytes = try await store.compactFile(path: storePath).after
    let after = try await store.statistics(now: day)
    let aggregateTable = after.objects.filter { $0.table == "sampleAggregate" }.reduce(0) { $0 + $1.bytes }
    let aggregateRows = after.types.reduce(0) { $0 + $1.aggregates }

    // Per type and day: raw bytes (its share of the sample tables) and aggregated bytes (its share of the
    // aggregate table); the rest of the day's growth (outcomes, device rows) is counted in every day.
    let rawDay = Double(rawBytes - emptyBytes)
    let rawShares = before.types.reduce(0) { $0 + $1.estimatedBytes }
    let other = max(0, rawDay - Double(rawShares))
    func raw(_ type: QuantityType) -> Double {
        Double(before.types.first { $0.type == type }?.estimatedBytes ?? 0)
    }
    func aggregated(_ type: QuantityType) -> Double {
        let rows = after.types.first { $0.type == type }?.aggregates ?? 0
        return aggregateRows > 0 ? Double(aggregateTable) * Double(rows) / Double(aggregateRows) : 0
    }
    let without = Double(emptyBytes) + 365 * rawDay
    let with =
        Double(emptyBytes) + 365 * other + 90 * raw(.heartRate) + 275 * aggregated(.heartRate) + 30 * raw(.rrInterval)
        + 335 * aggregated(.rrInterval)
    let seconds = Double(vacuumed.components.seconds) + Double(vacuumed.components.attoseconds) / 1e18
    print(
        String(
            format: "one 24 h day: %d samples (%d heart rate, %d RR); after VACUUM %.2f MB raw (%.1f bytes/sample), "
                + "%.2f MB once aggregated (%d one-minute aggregates); empty store %.0f KB",
            samples,
            before.types.first { $0.type == .heartRate }?.samples ?? 0,
            before.types.first { $0.type == .rrInterval }?.samples ?? 0,
            rawDay / 1e6,
            rawDay / Double(max(samples, 1)),
            Double(aggregatedBytes - emptyBytes) / 1e6,
            aggregateRows,
            Double(emptyBytes) / 1e3
        )
    )
    print(
        String(
            format: "a year of daily wear: without retention %.2f GB; with retention (raw heart rate 90 d, raw RR "
                + "30 d, then 1-minute aggregates) %.2f GB (%.0f%% of it)",
            without / 1e9,
            with / 1e9,
            100 * with / without
        )
    )
    print(
        String(
            format: "vacuum: %d samples aggregated and deleted in %.2f s (%.1f s per million samples), batches of 6 h",
            steps.reduce(0) { $0 + $1.samples },
            seconds,
            seconds * 1e6 / Double(max(samples, 1))
        )
    )
}
