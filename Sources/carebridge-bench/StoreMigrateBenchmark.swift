import CareStore
import DeviceProfiles
import Foundation
import GRDB
import Logging

/// The `v10-compact-samples` upgrade of a large store: the store file the release before it wrote
/// (`Tests/BridgeRuntimeTests/Fixtures/store-v9-before-compact.sqlite`) grown to `BENCH_SAMPLES` samples (one
/// million by default) of a heart-rate strap in that release's layout (heart rate and an RR interval per
/// notification, each row with its payload, metadata and time-ordered id), then opened: the time the upgrade
/// takes (conversion in committed chunks, then VACUUM) and the file size before and after.
let storeMigrateBenchmark = Benchmark(
    name: "store-migrate",
    summary: "upgrade a store of 1 M samples written by the release before the compact layout: time, sizes"
) {
    let count = Int(ProcessInfo.processInfo.environment["BENCH_SAMPLES"] ?? "") ?? 1_000_000
    // The fixture of the package checkout this was built from.
    let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(
            "Tests/BridgeRuntimeTests/Fixtures/store-v9-before-compact.sqlite"
        )
    guard FileManager.default.fileExists(atPath: fixture.path) else {
        FileHandle.standardError.write(Data("carebridge-bench: \(fixture.path): not found (needs the checkout)\n".utf8))
        exit(66)
    }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "carebridge-bench-\(UUID().uuidString)"
    )
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("store.sqlite").path
    try FileManager.default.copyItem(atPath: fixture.path, toPath: path)

    // Grow the old store with plain SQL in its own layout.
    let old = try DatabaseQueue(path: path)
    try await old.write { db in
        // Samples only: the fixture's outbox channel would queue every added row.
        try db.execute(sql: "DROP TRIGGER IF EXISTS outboxEntry_onSampleInsert")
        try db.execute(
            sql: "INSERT OR IGNORE INTO device (identity) VALUES (?)",
            arguments: [#"{"address":"02:00:00:00:00:05","name":"Bench strap"}"#]
        )
        let device = db.lastInsertedRowID
        let statement = try db.makeStatement(
            sql: """
                INSERT INTO sample (
                    id, type, value, unit, start, "end", transmittedValue, transmittedUnit, sourceKind,
                    characteristic, decoder, deviceID, deviceTime, receivedAt, clockOffset, payload, sampleIndex,
                    metadata, recordedAt
                ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'device', '2A37', 'heart-rate-measurement', ?, NULL, ?, NULL, ?, 0,
                '{"sensorContact":"detected"}', 1796000000.25)
                """
        )
        var generator = SystemRandomNumberGenerator()
        let base: Int64 = 1_795_158_000_000
        for row in 0..<count {
            let milliseconds = base + Int64(row / 2) * 1000
            var id = (0..<6).map { UInt8(truncatingIfNeeded: milliseconds >> (40 - 8 * $0)) }
            id += (0..<10).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let seconds = Double(milliseconds) / 1000
            // A notification's heart rate and RR interval share its payload.
            let heartRate = Double(60 + (row / 2) % 40)
            let rr = Double(700 + (row / 2) % 300)
            let payload = Data([0x16, UInt8(heartRate), UInt8(Int(rr) & 0xFF), UInt8(Int(rr) >> 8)])
            let arguments: StatementArguments =
                row % 2 == 0
                ? [
                    Data(id), "heartRate", heartRate, "/min", seconds, seconds, heartRate, "/min", device, seconds,
                    payload,
                ]
                : [
                    Data(id), "rrInterval", rr * 1000 / 1024, "ms", seconds, seconds, rr, "s/1024", device, seconds,
                    payload,
                ]
            statement.setUncheckedArguments(arguments)
            try statement.execute()
        }
    }
    try await old.writeWithoutTransaction { db in try db.execute(sql: "VACUUM") }
    try old.close()
    let before = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0

    let logger = Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }
    let cpuStart = processCPUSeconds()
    let clock = ContinuousClock()
    let start = clock.now
    let store = try CareStore(path: path, bridgeZone: TimeZone(identifier: "Europe/Berlin")!, logger: logger)
    let elapsed = clock.now - start
    let cpu = processCPUSeconds() - cpuStart
    let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let samples = try await store.sampleCount()
    let after = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    let (free, tables) = try await store.databaseWriter.read { db in
        (
            try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0,
            try Row.fetchAll(
                db,
                sql: "SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC LIMIT 4"
            ).map { "\($0[0] as String) \(String(format: "%.1f", Double($0[1] as Int) / 1e6)) MB" }
        )
    }
    print("after the upgrade: \(tables.joined(separator: ", ")); \(free) free pages")
    print(
        String(
            format: "%d samples (%d added to the fixture): upgrade %.1f s wall, %.1f s CPU → %.1f s per million; "
                + "file %.1f MB → %.1f MB (%.0f → %.0f bytes per sample)",
            samples + 1,
            count,
            wall,
            cpu,
            wall / Double(samples + 1) * 1e6,
            Double(before) / 1e6,
            Double(after) / 1e6,
            Double(before) / Double(samples + 1),
            Double(after) / Double(samples + 1)
        )
    )
}
