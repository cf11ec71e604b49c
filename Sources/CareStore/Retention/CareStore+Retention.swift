import BridgeCore
public import CarePlan
public import Foundation
import GRDB

extension CareStore {
    /// The stored retention policy (empty: every sample is kept raw forever).
    public func retentionPolicy() async throws(CareStoreError) -> RetentionPolicy {
        try await read { db in try Self.retentionPolicy(db) }
    }

    static func retentionPolicy(_ db: Database) throws -> RetentionPolicy {
        let rows = try Row.fetchAll(db, sql: "SELECT type, keepRawDays, aggregateMinutes FROM retentionRule")
        return RetentionPolicy(
            rules: try rows.map { row in
                let text: String = row[0]
                guard let type = QuantityType(rawValue: text) else {
                    throw CareStoreError(.corruptRow, "retention rule for unknown type '\(text)'")
                }
                return RetentionRule(type: type, keepRawDays: row[1], aggregateMinutes: row[2])
            }
        )
    }

    /// Replaces the stored retention policy (`plan apply` with a `"retention"` key). Nothing is deleted here:
    /// only `carebridge store vacuum` applies it.
    public func setRetentionPolicy(_ policy: RetentionPolicy, at now: Date = Date()) async throws(CareStoreError) {
        try await write { db in try Self.setRetentionPolicy(db, policy, at: now) }
    }

    static func setRetentionPolicy(_ db: Database, _ policy: RetentionPolicy, at now: Date) throws {
        try db.execute(sql: "DELETE FROM retentionRule")
        for rule in policy.rules {
            try db.execute(
                sql: "INSERT INTO retentionRule (type, keepRawDays, aggregateMinutes, setAt) VALUES (?, ?, ?, ?)",
                arguments: [rule.type.rawValue, rule.keepRawDays, rule.aggregateMinutes, now.timeIntervalSince1970]
            )
        }
    }

    /// The instant before which a rule aggregates, aligned down to its bucket width.
    static func horizon(_ rule: RetentionRule, now: Date) -> Int64 {
        let bucket = Int64(rule.bucketSeconds) * 1000
        let raw = Int64(((now.timeIntervalSince1970 - Double(rule.keepRawDays) * 86_400) * 1000).rounded(.down))
        return floorDiv(raw, bucket) * bucket
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// What a vacuum would aggregate and delete now, per type with a rule (a dry run: changes nothing).
    public func retentionPlan(now: Date = Date()) async throws(CareStoreError) -> [RetentionStep] {
        try await read { db in
            try Self.retentionPolicy(db).rules.map { rule in
                let horizon = Self.horizon(rule, now: now)
                let counts = try SampleRetentionSQL.countCandidates(
                    db,
                    type: rule.type.rawValue,
                    before: horizon,
                    bucketMilliseconds: Int64(rule.bucketSeconds) * 1000
                )
                return RetentionStep(
                    type: rule.type,
                    keepRawDays: rule.keepRawDays,
                    aggregateMinutes: rule.aggregateMinutes,
                    horizon: Date(timeIntervalSince1970: Double(horizon) / 1000),
                    samples: counts.samples,
                    aggregates: counts.buckets
                )
            }
        }
    }

    /// Applies the retention policy: for each type with a rule, the raw candidate samples measured before its
    /// horizon are folded into per-bucket aggregates and deleted, one batch (`batchSeconds` of measurement time)
    /// per transaction. Each batch writes its aggregates and deletes exactly the rows it aggregated in the same
    /// transaction, so an interrupted vacuum leaves a consistent store and loses nothing that is not
    /// aggregated; running it again continues, and once done it changes nothing. Outcomes are not re-derived:
    /// events completed before keep their stored values. Types without a rule are never touched.
    /// - Parameters:
    ///   - now: the instant horizons are counted back from.
    ///   - batchSeconds: the measurement time one transaction covers (a multiple of every bucket width is best;
    ///     any value is exact, since a bucket split over two batches is merged).
    ///   - progress: called after each committed batch.
    /// - Returns: per type, what was aggregated and deleted.
    @discardableResult
    public func applyRetention(
        now: Date = Date(),
        batchSeconds: Int = 21_600,
        progress: (RetentionProgress) async -> Void = { _ in }
    ) async throws(CareStoreError) -> [RetentionStep] {
        let plan = try await retentionPlan(now: now)
        let policy = try await retentionPolicy()
        var done: [RetentionStep] = []
        var deletedAny = false
        for planned in plan {
            guard let rule = policy.rule(for: planned.type) else { continue }
            let horizon = Self.horizon(rule, now: now)
            let bucket = Int64(rule.bucketSeconds) * 1000
            let span = Int64(max(rule.bucketSeconds, (batchSeconds / rule.bucketSeconds) * rule.bucketSeconds)) * 1000
            var step = planned
            step.samples = 0
            step.aggregates = 0
            var from = Int64.min
            while true {
                let batchFrom = from
                let batch = try await write { db -> (samples: Int, aggregates: Int, reached: Int64)? in
                    guard let code = try SampleRetentionSQL.typeCode(db, rule.type.rawValue),
                        let first = try SampleRetentionSQL.firstCandidate(db, type: code, from: batchFrom, to: horizon)
                    else { return nil }
                    // Batches start on a bucket boundary and cover whole buckets, up to the horizon.
                    let start = Self.floorDiv(first, bucket) * bucket
                    let end = min(horizon, start + span)
                    var accumulator = AggregateAccumulator(bucketMilliseconds: bucket)
                    var keys: [SampleTable.RowKey] = []
                    try SampleRetentionSQL.readCandidates(
                        db,
                        type: code,
                        from: start,
                        to: end,
                        pending: try SampleRetentionSQL.pendingOutbox(db)
                    ) { row in
                        accumulator.add(row)
                        keys.append(row.key)
                    }
                    let written = try accumulator.merge(into: db, type: rule.type.rawValue, now: now)
                    let deleted = try SampleRetentionSQL.delete(db, keys: keys)
                    guard deleted == accumulator.samples else {
                        throw CareStoreError(
                            .database,
                            "vacuum of \(rule.type) stopped: aggregated \(accumulator.samples) samples but deleted "
                                + "\(deleted); nothing of this batch was changed"
                        )
                    }
                    if deleted > 0 { try Self.setPayloadSweepPending(db) }
                    return (deleted, written, end)
                }
                guard let batch else { break }
                from = batch.reached
                deletedAny = deletedAny || batch.samples > 0
                step.samples += batch.samples
                step.aggregates += batch.aggregates
                await progress(
                    RetentionProgress(
                        type: rule.type,
                        samplesDone: step.samples,
                        samplesPlanned: planned.samples,
                        reached: Date(timeIntervalSince1970: Double(batch.reached) / 1000)
                    )
                )
            }
            done.append(step)
        }
        // The payloads of the deleted samples, once no sample refers to them (an interrupted vacuum leaves the
        // sweep pending; the next one does it).
        try await write { db in
            guard try Self.payloadSweepPending(db) else { return }
            _ = try SampleRetentionSQL.deleteUnreferencedPayloads(db)
            try db.execute(sql: "DELETE FROM retentionState WHERE key = 'payloadSweepPending'")
        }
        return done
    }

    static func setPayloadSweepPending(_ db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO retentionState (key, value) VALUES ('payloadSweepPending', 1)")
    }

    static func payloadSweepPending(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM retentionState WHERE key = 'payloadSweepPending')")
            ?? false
    }

    /// Rewrites the file without its free pages (SQLite `VACUUM`) and truncates the write-ahead log.
    /// - Returns: the file's size before and after (bytes, with the log).
    @discardableResult
    public func compactFile(path: String) async throws(CareStoreError) -> (before: Int, after: Int) {
        let before = Self.fileSize(path) + Self.fileSize(path + "-wal")
        do {
            try await databaseWriter.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
                try db.execute(sql: "VACUUM")
                try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            }
        } catch {
            throw CareStoreError(.database, "VACUUM of \(path) failed: \(error)", cause: error)
        }
        return (before, Self.fileSize(path) + Self.fileSize(path + "-wal"))
    }

    static func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }
}

/// Folds candidate rows into buckets, exactly: count and sum, min and max (earliest on ties), first and last in
/// (start, id) order, each with its measurement time.
struct AggregateAccumulator {
    struct Key: Hashable {
        var bucketStart: Int64
        var unit: String
        var sourceKind: String
        var deviceID: Int64?
        var patientID: String?
    }

    struct Bucket {
        var count = 0
        var sum = 0.0
        var min = (0.0, Int64(0))
        var max = (0.0, Int64(0))
        var first = (0.0, Int64(0))
        var last = (0.0, Int64(0))

        mutating func add(_ value: Double, at time: Int64) {
            if count == 0 {
                min = (value, time)
                max = (value, time)
                first = (value, time)
            } else {
                if value < min.0 { min = (value, time) }
                if value > max.0 { max = (value, time) }
            }
            last = (value, time)
            count += 1
            sum += value
        }

        /// Adds a bucket whose samples were aggregated before (`earlier`: it holds the earlier first sample).
        mutating func merge(_ other: Bucket) {
            guard other.count > 0 else { return }
            guard count > 0 else {
                self = other
                return
            }
            count += other.count
            sum += other.sum
            if other.min.0 < min.0 || (other.min.0 == min.0 && other.min.1 < min.1) { min = other.min }
            if other.max.0 > max.0 || (other.max.0 == max.0 && other.max.1 < max.1) { max = other.max }
            if other.first.1 < first.1 { first = other.first }
            if other.last.1 >= last.1 { last = other.last }
        }
    }

    let bucketMilliseconds: Int64
    private(set) var buckets: [Key: Bucket] = [:]
    private(set) var samples = 0

    init(bucketMilliseconds: Int64) {
        self.bucketMilliseconds = bucketMilliseconds
    }

    mutating func add(_ row: SampleRetentionSQL.Row) {
        let time = row.start
        let key = Key(
            bucketStart: CareStore.floorDiv(time, bucketMilliseconds) * bucketMilliseconds,
            unit: row.unit,
            sourceKind: row.sourceKind,
            deviceID: row.deviceID,
            patientID: row.patientID
        )
        buckets[key, default: Bucket()].add(row.value, at: time)
        samples += 1
    }

    /// Writes every bucket, merged with the aggregate already stored for it (late samples of an aggregated
    /// bucket).
    /// - Returns: how many aggregate rows were inserted or updated.
    func merge(into db: Database, type: String, now: Date) throws -> Int {
        let find = try db.cachedStatement(
            sql: """
                SELECT id, count, sum, min, minAt, max, maxAt, first, firstAt, last, lastAt FROM sampleAggregate
                WHERE type = ? AND bucketStart = ? AND unit = ? AND sourceKind = ? AND deviceID IS ? AND patientID IS ?
                """
        )
        let keys = buckets.keys.sorted {
            ($0.bucketStart, $0.sourceKind, $0.unit) < ($1.bucketStart, $1.sourceKind, $1.unit)
        }
        for key in keys {
            var bucket = buckets[key]!
            find.setUncheckedArguments([type, key.bucketStart, key.unit, key.sourceKind, key.deviceID, key.patientID])
            let stamp = now.timeIntervalSince1970
            if let row = try Row.fetchOne(find) {
                var stored = Bucket()
                stored.count = row[1]
                stored.sum = row[2]
                stored.min = (row[3], row[4])
                stored.max = (row[5], row[6])
                stored.first = (row[7], row[8])
                stored.last = (row[9], row[10])
                stored.merge(bucket)
                bucket = stored
                try db.execute(
                    sql: """
                        UPDATE sampleAggregate SET count = ?, sum = ?, min = ?, minAt = ?, max = ?, maxAt = ?,
                            first = ?, firstAt = ?, last = ?, lastAt = ?, updatedAt = ? WHERE id = ?
                        """,
                    arguments: [
                        bucket.count, bucket.sum, bucket.min.0, bucket.min.1, bucket.max.0, bucket.max.1,
                        bucket.first.0, bucket.first.1, bucket.last.0, bucket.last.1, stamp, row[0] as Int64,
                    ]
                )
            } else {
                try db.execute(
                    sql: """
                        INSERT INTO sampleAggregate (type, unit, bucketStart, bucketEnd, sourceKind, deviceID,
                            patientID, count, sum, min, minAt, max, maxAt, first, firstAt, last, lastAt, createdAt,
                            updatedAt)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        type, key.unit, key.bucketStart, key.bucketStart + bucketMilliseconds, key.sourceKind,
                        key.deviceID, key.patientID, bucket.count, bucket.sum, bucket.min.0, bucket.min.1,
                        bucket.max.0, bucket.max.1, bucket.first.0, bucket.first.1, bucket.last.0, bucket.last.1,
                        stamp, stamp,
                    ]
                )
            }
        }
        return keys.count
    }
}
