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
    let store = try CareStore(path: directory.appendingPathComponent("store.sqlite").path, bridgeZone: berlin, logger: quietLogger)
    try store.applyPlan(benchmarkPlan(start: planStart))

    let clock = ContinuousClock()
    var inserted = 0
    var unmatched = 0
    var eventsUpdated = 0
    let storeTime = try clock.measure {
        var index = 0
        while index < samples.count {
            let end = min(index + batch, samples.count)
            let report = try store.recordSamples(Array(samples[index..<end]))
            inserted += report.inserted
            unmatched += report.unmatched
            eventsUpdated += report.eventsUpdated
            index = end
        }
    }
    let span = (samples.first!.start, samples.last!.start.addingTimeInterval(1))
    let completed = try store.events(matching: EventQuery(from: span.0, to: span.1, kinds: [.assessment]))
        .filter(\.isCompleted).count
    let values = try store.databaseWriter.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM outcomeValue") ?? 0 }

    // Plain SQLite: the same `sample` table (DDL copied from the store), the same rows and batches, one
    // prepared INSERT per row, no auto-completion.
    let ddl = try store.databaseWriter.read { db in
        try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE tbl_name = 'sample' AND sql IS NOT NULL")
    }
    var configuration = Configuration()
    configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
    let plain = try DatabasePool(path: directory.appendingPathComponent("plain.sqlite").path, configuration: configuration)
    try plain.write { db in for sql in ddl { try db.execute(sql: sql) } }
    let device = String(decoding: try JSONEncoder().encode(samples[0].source.device!), as: UTF8.self)
    let recordedAt = Date().timeIntervalSince1970
    let plainTime = try clock.measure {
        var index = 0
        while index < samples.count {
            let end = min(index + batch, samples.count)
            try plain.write { db in
                let statement = try db.cachedStatement(
                    sql: """
                        INSERT OR IGNORE INTO sample (id, idempotencyKey, type, value, unit, start, "end",
                        transmittedValue, transmittedUnit, sourceKind, characteristic, decoder, deviceKey, device,
                        deviceTime, receivedAt, clockOffset, payload, sampleIndex, metadata, recordedAt)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """
                )
                for sample in samples[index..<end] {
                    let key = sample.idempotencyKey
                    let values: [(any DatabaseValueConvertible)?] = [
                        SHA256.uuid(for: key).uuidString.lowercased(), key, sample.type.rawValue, sample.value,
                        sample.unit.rawValue, sample.start.timeIntervalSince1970, sample.end.timeIntervalSince1970,
                        sample.transmittedValue, sample.transmittedUnit.rawValue, sample.source.kind.rawValue,
                        sample.source.characteristic?.description, sample.source.decoder, sample.source.device?.key,
                        device, nil, sample.receivedAt.timeIntervalSince1970, nil, Hex.string(sample.rawPayload),
                        sample.index, nil, recordedAt,
                    ]
                    statement.setUncheckedArguments(StatementArguments(values))
                    try statement.execute()
                }
            }
            index = end
        }
    }
    let storeSeconds = seconds(storeTime)
    let plainSeconds = seconds(plainTime)
    print("samples: \(count) (\(inserted) inserted, \(unmatched) unmatched), batches of \(batch), 20 tasks")
    print("auto-completion: \(eventsUpdated) event updates, \(completed) assessment events completed, \(values) outcome values")
    print(String(format: "store ingest with auto-completion: %.2f s → %.0f samples/s", storeSeconds, Double(count) / storeSeconds))
    print(String(format: "plain SQLite insert, same rows:    %.2f s → %.0f samples/s", plainSeconds, Double(count) / plainSeconds))
    print(String(format: "ratio (store time / plain time):   %.2f", storeSeconds / plainSeconds))
}
