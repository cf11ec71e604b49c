import BridgeCore
import CarePlan
import CareStore
import Foundation
import GATTDecoding
import GRDB

/// Ingest with auto-completion against the 20-task plan, then a plain SQLite insert of the same rows.
/// `BENCH_SAMPLES` (default 1,000,000) and `BENCH_BATCH` (default 10,000 samples per transaction) override.
let storeIngestBenchmark = Benchmark(
    name: "store-ingest",
    summary: "recordSamples with auto-completion vs plain SQLite insert (1M samples, 20 tasks)"
) {
    let environment = ProcessInfo.processInfo.environment
    let count = environment["BENCH_SAMPLES"].flatMap(Int.init) ?? 1_000_000
    let batch = environment["BENCH_BATCH"].flatMap(Int.init) ?? 10_000
    let directory = try benchmarkDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let planStart = WallClockTime(year: 2024, month: 1, day: 1)
    // One sample a minute: 1M samples span about 694 days.
    let samples = benchmarkSamples(count: count, from: planStart.date(in: berlin), spacing: 60)
    let store = try CareStore(
        path: directory.appendingPathComponent("store.sqlite").path,
        bridgeZone: berlin,
        logger: quietLogger
    )
    try await store.applyPlan(benchmarkPlan(start: planStart))

    var inserted = 0
    var unmatched = 0
    var eventsUpdated = 0
    let storeTime = try await measure {
        var index = 0
        while index < samples.count {
            let end = min(index + batch, samples.count)
            let report = try await store.recordSamples(Array(samples[index..<end]))
            inserted += report.inserted
            unmatched += report.unmatched
            eventsUpdated += report.eventsUpdated
            index = end
        }
    }
    let span = (samples.first!.start, samples.last!.start.addingTimeInterval(1))
    let completed = try await store.events(matching: EventQuery(from: span.0, to: span.1, kinds: [.assessment]))
        .filter(\.isCompleted).count
    let values = try await store.databaseWriter.read { db in
        try Int.fetchOne(db, sql: "SELECT count(*) FROM outcomeValue") ?? 0
    }

    // Plain SQLite: the same `sampleRow` table (DDL copied from the store), the same rows and batches, one
    // prepared INSERT per row (codes and references fixed, no lookup tables), no auto-completion.
    let ddl = try await store.databaseWriter.read { db in
        try String.fetchAll(
            db,
            sql: "SELECT sql FROM sqlite_master WHERE tbl_name = 'sampleRow' AND type != 'trigger' AND sql IS NOT NULL"
        )
    }
    var configuration = Configuration()
    configuration.prepareDatabase { db in
        // The store's own settings, so only the work differs.
        try db.execute(sql: "PRAGMA synchronous = NORMAL")
        try db.execute(sql: "PRAGMA cache_size = -8192")
    }
    let plain = try DatabasePool(
        path: directory.appendingPathComponent("plain.sqlite").path,
        configuration: configuration
    )
    try await plain.write { db in
        for sql in ddl { try db.execute(sql: sql) }
    }
    var typeCodes: [QuantityType: Int64] = [:]
    for sample in samples where typeCodes[sample.type] == nil { typeCodes[sample.type] = Int64(typeCodes.count + 1) }
    let plainTime = try await measure {
        var index = 0
        while index < samples.count {
            let end = min(index + batch, samples.count)
            try plain.write { db in
                let statement = try db.cachedStatement(
                    sql: """
                        INSERT OR IGNORE INTO sampleRow (type, start, idTail, series, origin, transmittedValue, state,
                        route, detail) VALUES (?, ?, ?, ?, ?, ?, NULL, 0, NULL)
                        """
                )
                for (offset, sample) in samples[index..<end].enumerated() {
                    let id = withUnsafeBytes(of: sample.id.uuid) { Data($0) }
                    let values: [(any DatabaseValueConvertible)?] = [
                        typeCodes[sample.type]!.databaseValue,
                        Int64((sample.start.timeIntervalSince1970 * 1000).rounded()).databaseValue,
                        id.suffix(10).databaseValue, 1.databaseValue, (index + offset).databaseValue,
                        sample.transmittedValue.databaseValue,
                    ]
                    statement.setUncheckedArguments(StatementArguments(values))
                    try statement.execute()
                }
            }
            index = end
        }
    }
    // The part of both figures that is not SQLite: the idempotency key and its SHA-256 id.
    var checksum = 0
    let prepareTime = await measure {
        for sample in samples {
            let key = sample.idempotencyKey
            let id = SampleID.uuid(key: key, milliseconds: sample.idMilliseconds)
            checksum &+= key.utf8.count &+ Int(id.uuid.0)
        }
    }
    print("samples: \(count) (\(inserted) inserted, \(unmatched) unmatched), batches of \(batch), 20 tasks")
    print(
        "auto-completion: \(eventsUpdated) event updates, \(completed) assessment events completed, \(values) outcome values"
    )
    for (label, time) in [
        ("store ingest with auto-completion", storeTime), ("plain SQLite insert, same rows   ", plainTime),
    ] {
        print(
            label
                + String(
                    format: ": wall %.2f s → %.0f samples/s; CPU %.2f s → %.0f samples/s",
                    time.wall,
                    Double(count) / time.wall,
                    time.cpu,
                    Double(count) / time.cpu
                )
        )
    }
    print(
        String(
            format: "of which idempotency key + SHA-256 id per row: CPU %.2f s (%.1f µs/row) [%d]",
            prepareTime.cpu,
            prepareTime.cpu / Double(count) * 1e6,
            checksum % 10
        )
    )
    print(
        String(
            format: "ratio store / plain: wall %.2f, CPU %.2f",
            storeTime.wall / plainTime.wall,
            storeTime.cpu / plainTime.cpu
        )
    )
}
