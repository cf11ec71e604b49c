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

#if canImport(Glibc)
import Glibc
#endif

/// A 24-hour heart-rate day at rest (issue #17): the store file's size per sample after a checkpoint, and the
/// replay's time side by side with SQLite alone inserting the same number of rows in one run.
///
/// "SQLite alone" is the `sqlite3` shell reading one SQL file that inserts as many rows as the replay stored
/// (a 16-byte time-ordered key, a type code, a time and a value, `WITHOUT ROWID`) in one transaction: the cost
/// of SQLite storing that many rows with no bridge around it. The ratio printed is SQLite alone's time divided
/// by the replay's (1.0: the bridge costs nothing beyond SQLite; the target is ≥ 0.5).
let storeDayBenchmark = Benchmark(
    name: "store-day",
    summary: "a 24 h heart-rate day: bytes per stored sample, replay vs SQLite alone, projected year size"
) {
    let output = try runBenchmarkChild(["--store-day-child", "24"])
    print(output.trimmingCharacters(in: .whitespacesAndNewlines))
}

/// One replay into a fresh store in this process (the child side of ``storeDayBenchmark``), then the size and
/// the SQLite-alone comparison; prints the figures.
func runStoreDayChild(hours: Int) async throws {
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
    let recordingBytes = (try? FileManager.default.attributesOfItem(atPath: recording)[.size] as? Int) ?? 0

    let storePath = directory.appendingPathComponent("store.sqlite").path
    let store = try CareStore(path: storePath, bridgeZone: zone, logger: logger)
    let plan = """
        {"tasks": [
          {"id": "resting-heart-rate", "title": "Resting heart rate", "kind": "assessment",
           "schedule": {"timeZone": "Europe/Berlin", "elements": [{"start": "2026-11-01T00:00:00", "interval": {"days": 1}, "duration": "allDay"}]},
           "linkage": {"type": "heartRate", "unit": "/min", "aggregation": "min"}}
        ]}
        """
    try await store.applyPlan(try CarePlanDocument.parse(Data(plan.utf8), path: "bench-plan.json", bridgeZone: zone))
    let catalog = DeviceProfileLoader.loadDefault().catalog
    guard catalog.profile(id: "heart-rate") != nil else {
        FileHandle.standardError.write(Data("carebridge-bench: Devices/ not found next to the executable\n".utf8))
        exit(66)
    }
    let clock = ContinuousClock()
    // The pipeline alone (samples discarded), for attribution: what the replay costs beyond it is the store's.
    let pipelineCPUBefore = processCPUSeconds()
    _ = try await PipelineRunner.replay(
        try ReplayTransport(path: recording, logger: logger),
        catalog: catalog,
        configuration: PipelineConfiguration(timeZone: zone),
        sink: DiscardingSink(),
        logger: logger
    )
    let pipelineCPU = processCPUSeconds() - pipelineCPUBefore
    var report = PipelineReport()
    let cpuBefore = processCPUSeconds()
    let replayed = try await clock.measure {
        report = try await PipelineRunner.replay(
            try ReplayTransport(path: recording, logger: logger),
            catalog: catalog,
            configuration: PipelineConfiguration(timeZone: zone),
            sink: CareStoreSink(store: store, recordedAt: Date()),
            logger: logger
        )
    }
    let replaySeconds = durationSeconds(replayed)
    let replayCPU = processCPUSeconds() - cpuBefore
    // `carebridge samples --type heartRate --from --to` over one day: the store's part, 5 times (wall and CPU,
    // from the call until the returned samples are freed; and the wall time until they are returned).
    let dayStart = Date(timeIntervalSince1970: 1_795_158_000)
    let dayQuery = SampleQuery(types: [.heartRate], from: dayStart, to: dayStart.addingTimeInterval(86_400))
    var queryRuns: [(wall: Double, cpu: Double, returned: Double)] = []
    var daySamples = 0
    for _ in 0..<5 {
        let cpu = processCPUSeconds()
        let start = clock.now
        var result = try await store.samples(matching: dayQuery)
        let returned = clock.now
        daySamples = result.count
        result = []
        let end = clock.now
        queryRuns.append(
            (durationSeconds(end - start), processCPUSeconds() - cpu, durationSeconds(returned - start))
        )
    }
    queryRuns.sort { $0.wall < $1.wall }
    let queryCPU = queryRuns.map(\.cpu).sorted()
    // SQLite alone reading the same rows: one statement aggregating the columns the query reads, so SQLite walks
    // the same key range and origins and hands out nothing.
    var sqliteReads: [Double] = []
    for _ in 0..<5 {
        let start = clock.now
        _ = try store.databaseWriter.read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT count(*), sum(r.idTail IS NOT NULL), sum(r.series), sum(r.transmittedValue), sum(r.route),
                    sum(r.detail IS NOT NULL), sum(length(o.payload)), sum(o.metadata)
                    FROM sampleRow AS r JOIN sampleOrigin AS o ON o.id = r.origin
                    WHERE r.type = (SELECT code FROM quantityType WHERE name = 'heartRate')
                    AND r.start >= ? AND r.start < ? AND (r.state IS NULL OR r.state & 3 = 0)
                    """,
                arguments: [1_795_158_000_000, 1_795_158_000_000 + 86_400_000]
            )
        }
        sqliteReads.append(durationSeconds(clock.now - start))
    }
    sqliteReads.sort()
    let samples = try await store.sampleCount()
    try await store.databaseWriter.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
    }
    let fileBytes = (try? FileManager.default.attributesOfItem(atPath: storePath)[.size] as? Int) ?? 0
    let tables = try await store.databaseWriter.read { db -> [(String, Int)] in
        guard (try? Row.fetchOne(db, sql: "SELECT 1 FROM dbstat LIMIT 1")) != nil else { return [] }
        return try Row.fetchAll(
            db,
            sql: "SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC"
        ).map { ($0[0], $0[1]) }
    }

    // SQLite alone: the same number of rows, time-ordered 16-byte keys, one transaction, from SQL.
    let sqlPath = directory.appendingPathComponent("alone.sql").path
    var sql = "PRAGMA journal_mode = WAL;\nPRAGMA synchronous = NORMAL;\n"
    sql += "CREATE TABLE sample (id BLOB PRIMARY KEY, type INTEGER NOT NULL, start INTEGER NOT NULL, "
    sql += "value REAL NOT NULL) WITHOUT ROWID;\nBEGIN;\n"
    let base: Int64 = 1_795_158_000_000
    var generator = SystemRandomNumberGenerator()
    for row in 0..<samples {
        let milliseconds = base + Int64(row / 2) * 1000
        var key = String(milliseconds, radix: 16)
        key = String(repeating: "0", count: max(0, 12 - key.count)) + key
        let tail = (0..<10).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
        sql += "INSERT INTO sample VALUES (x'\(key)\(tail)', \(row % 2), \(milliseconds), \(60 + row % 50).5);\n"
    }
    sql += "COMMIT;\nPRAGMA wal_checkpoint(TRUNCATE);\n"
    try sql.write(toFile: sqlPath, atomically: true, encoding: .utf8)
    let alonePath = directory.appendingPathComponent("alone.sqlite").path
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["sqlite3", alonePath]
    process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: sqlPath))
    process.standardOutput = FileHandle.nullDevice
    let aloneStart = clock.now
    try process.run()
    process.waitUntilExit()
    let aloneSeconds = durationSeconds(clock.now - aloneStart)
    let aloneCPU = processCPUSeconds(of: RUSAGE_CHILDREN)
    guard process.terminationStatus == 0 else {
        FileHandle.standardError.write(Data("carebridge-bench: sqlite3 failed (is it installed?)\n".utf8))
        exit(69)
    }
    let aloneBytes = (try? FileManager.default.attributesOfItem(atPath: alonePath)[.size] as? Int) ?? 0

    let perSample = Double(fileBytes) / Double(max(samples, 1))
    print(
        String(
            format: "%d h: %d notifications, %d samples stored (%d from the pipeline); recording %.1f MB",
            hours,
            notifications,
            samples,
            report.samples,
            Double(recordingBytes) / 1e6
        )
    )
    print(
        String(
            format: "store file after a checkpoint: %.1f MB = %.1f bytes per sample; a year of such days: %.1f GB",
            Double(fileBytes) / 1e6,
            perSample,
            perSample * Double(samples) * 365 * 24 / Double(hours) / 1e9
        )
    )
    for (name, bytes) in tables where bytes >= 65_536 {
        print(
            String(
                format: "  %@ %8.1f MB  %5.1f bytes/sample",
                name.padding(toLength: 32, withPad: " ", startingAt: 0),
                Double(bytes) / 1e6,
                Double(bytes) / Double(max(samples, 1))
            )
        )
    }
    print(
        String(
            format: "replay: %.2f s wall, %.2f s CPU; SQLite alone (sqlite3, %d rows, one transaction): %.2f s wall, "
                + "%.2f s CPU, %.1f bytes/row",
            replaySeconds,
            replayCPU,
            samples,
            aloneSeconds,
            aloneCPU,
            Double(aloneBytes) / Double(max(samples, 1))
        )
    )
    let median = queryRuns[queryRuns.count / 2]
    print(
        String(
            format:
                "samples of one type over one day (%d heart-rate samples): median %.1f ms, fastest %.1f ms (%d runs), "
                + "CPU median %.1f ms",
            daySamples,
            median.wall * 1000,
            queryRuns[0].wall * 1000,
            queryRuns.count,
            queryCPU[queryCPU.count / 2] * 1000
        )
    )
    print(
        String(
            format: "  of the median run: returning the samples %.1f ms, freeing them %.1f ms; SQLite alone reading "
                + "the same rows (one aggregate statement): median %.1f ms",
            median.returned * 1000,
            (median.wall - median.returned) * 1000,
            sqliteReads[2] * 1000
        )
    )
    print(
        String(
            format: "of the replay's CPU: the pipeline alone (samples discarded) %.2f s, the store %.2f s",
            pipelineCPU,
            replayCPU - pipelineCPU
        )
    )
    print(
        String(
            format: "SQLite alone / replay: %.2f wall, %.2f CPU (target ≥ 0.5)",
            aloneSeconds / replaySeconds,
            aloneCPU / replayCPU
        )
    )
}

private func durationSeconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}
