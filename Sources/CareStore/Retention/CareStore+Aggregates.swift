import BridgeCore
import CarePlan
import Foundation
import GRDB

extension CareStore {
    /// The aggregates that stand for vacuumed samples, by the measurement time of their first sample, oldest
    /// first. Answers the same query as ``samples(matching:)`` for the time before a retention horizon (the two
    /// never hold the same sample). Quarantined, unassigned and unmatched queries have no aggregates (those
    /// samples are never aggregated, and aggregates complete no event on their own).
    public func sampleAggregates(matching query: SampleQuery) async throws(CareStoreError) -> [SampleAggregate] {
        if query.unassignedOnly || query.quarantine == .only || query.unmatchedOnly { return [] }
        let scope = patientScope
        return try await read { db in
            var conditions: [String] = []
            var arguments = StatementArguments()
            if !query.types.isEmpty {
                let types = query.types.map(\.rawValue).sorted()
                conditions.append("a.type IN (\(databaseQuestionMarks(count: types.count)))")
                arguments += StatementArguments(types)
            }
            if let from = query.from {
                let milliseconds = Int64((from.timeIntervalSince1970 * 1000).rounded(.up))
                conditions.append("a.firstAt >= ? AND a.bucketStart > ? - 86400000")
                arguments += [milliseconds, milliseconds]
            }
            if let to = query.to {
                let milliseconds = Int64((to.timeIntervalSince1970 * 1000).rounded(.up))
                conditions.append("a.firstAt < ? AND a.bucketStart < ?")
                arguments += [milliseconds, milliseconds]
            }
            if let patient = query.patientID ?? scope {
                conditions.append("a.patientID = ?")
                arguments += [patient]
            }
            let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
            var sql = """
                SELECT a.*, device.identity AS deviceIdentity FROM sampleAggregate AS a
                LEFT JOIN device ON device.id = a.deviceID \(filter) ORDER BY a.firstAt, a.id
                """
            if let limit = query.limit { sql += " LIMIT \(limit)" }
            var devices: [String: DeviceIdentity] = [:]
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                try Self.aggregate(row, devices: &devices)
            }
        }
    }

    static func aggregate(_ row: Row, devices: inout [String: DeviceIdentity]) throws -> SampleAggregate {
        let typeText: String = row["type"]
        let kindText: String = row["sourceKind"]
        guard let type = QuantityType(rawValue: typeText), let kind = SampleSource.Kind(rawValue: kindText) else {
            throw CareStoreError(
                .corruptRow,
                "aggregate \(row["id"] as Int64): unknown type '\(typeText)' or source '\(kindText)'"
            )
        }
        var device: DeviceIdentity?
        if let identity = row["deviceIdentity"] as String? {
            if let known = devices[identity] {
                device = known
            } else {
                device = try? JSONDecoder().decode(DeviceIdentity.self, from: Data(identity.utf8))
                devices[identity] = device
            }
        }
        func date(_ column: String) -> Date { Date(timeIntervalSince1970: Double(row[column] as Int64) / 1000) }
        return SampleAggregate(
            type: type,
            unit: HealthUnit(rawValue: row["unit"]),
            bucketStart: date("bucketStart"),
            bucketEnd: date("bucketEnd"),
            sourceKind: kind,
            device: device,
            patientID: row["patientID"],
            count: row["count"],
            sum: row["sum"],
            min: (row["min"], date("minAt")),
            max: (row["max"], date("maxAt")),
            first: (row["first"], date("firstAt")),
            last: (row["last"], date("lastAt"))
        )
    }

    /// How many aggregates the store holds, and how many samples they stand for.
    public func aggregateCount() async throws(CareStoreError) -> (aggregates: Int, samples: Int) {
        try await read { db in
            let row = try Row.fetchOne(db, sql: "SELECT count(*), coalesce(sum(count), 0) FROM sampleAggregate")
            return (row?[0] ?? 0, row?[1] ?? 0)
        }
    }
}

extension SampleMatcher {
    /// The aggregates of vacuumed samples that fall in a touched event (placed at their first sample), as
    /// contributions for the linkage's aggregation: `min`/`max`/`first`/`last` the exact value and time; `mean`
    /// and `sum` the exact sum with the count as weight; `each` one value per aggregate, its mean (the
    /// individual values are gone). No sample id: they are gone too.
    static func aggregateContributions(_ db: Database, touch: Touch, linkage: SampleLinkage) throws -> [Contribution] {
        let start = Int64((touch.event.start.timeIntervalSince1970 * 1000).rounded(.down))
        let end = Int64((touch.event.end.timeIntervalSince1970 * 1000).rounded(.up)) + 1000
        let statement = try db.cachedStatement(
            sql: """
                SELECT unit, count, sum, min, minAt, max, maxAt, first, firstAt, last, lastAt, updatedAt
                FROM sampleAggregate WHERE type = ? AND bucketStart > ? - 86400000 AND bucketStart <= ?
                AND firstAt >= ? AND firstAt <= ? AND patientID IS ? ORDER BY firstAt, id
                """
        )
        statement.setUncheckedArguments([linkage.type.rawValue, start, end, start, end, touch.version.patient])
        var result: [Contribution] = []
        let rows = try Row.fetchCursor(statement)
        func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
        while let row = try rows.next() {
            let firstAt = date(row[8])
            guard touch.event.contains(firstAt), touch.version.governs(firstAt) else { continue }
            let unit = HealthUnit(rawValue: row[0])
            let count: Int = row[1]
            let recorded = Date(timeIntervalSince1970: row[11])
            func contribution(_ value: Double, at: Date, weight: Int = 1) -> Contribution? {
                guard let converted = unit.convert(value, to: linkage.unit) else { return nil }
                return Contribution(
                    sampleID: .none,
                    value: converted,
                    measuredAt: at,
                    recordedAt: recorded,
                    weight: weight
                )
            }
            let item: Contribution?
            switch linkage.aggregation {
            case .min: item = contribution(row[3], at: date(row[4]))
            case .max: item = contribution(row[5], at: date(row[6]))
            case .first: item = contribution(row[7], at: firstAt)
            case .last: item = contribution(row[9], at: date(row[10]))
            case .each: item = contribution((row[2] as Double) / Double(count), at: firstAt)
            case .mean, .sum:
                // The mean converted (right for affine units too), times the count.
                item = contribution((row[2] as Double) / Double(count), at: date(row[10]), weight: count).map {
                    var weighted = $0
                    weighted.value *= Double(count)
                    return weighted
                }
            }
            if let item { result.append(item) }
        }
        return result
    }
}

/// Keeps a re-import of a vacuumed period from storing its samples a second time (once raw, once inside an
/// aggregate): a device sample measured in a bucket that already has an aggregate from the same device and
/// source kind is skipped as already stored. Costs one indexed look-up per type and batch, plus one per sample
/// older than the type's newest aggregate.
struct AggregatedRanges {
    private var newest: [QuantityType: Double?] = [:]

    mutating func covers(_ sample: QuantitySample, db: Database) throws -> Bool {
        guard sample.source.kind != .manual else { return false }
        let limit: Double?
        if let known = newest[sample.type] {
            limit = known
        } else {
            let bucketStart = try Int64.fetchOne(
                db,
                sql: "SELECT max(bucketStart) FROM sampleAggregate WHERE type = ?",
                arguments: [sample.type.rawValue]
            )
            limit = bucketStart.map { Double($0) / 1000 + 86_400 }
            newest[sample.type] = limit
        }
        guard let limit, sample.start.timeIntervalSince1970 < limit else { return false }
        return try SampleRetentionSQL.isAggregated(
            db,
            type: sample.type.rawValue,
            start: SampleTable.milliseconds(sample.start),
            sourceKind: sample.source.kind.rawValue,
            deviceIdentity: sample.source.device.map(SampleRecord.encodeDevice)
        )
    }
}

extension CareStore {
    /// The distinct first-sample times of the aggregates of `type` in a version's region and patient (the
    /// events a new task version derives from vacuumed samples).
    static func aggregateStarts(_ db: Database, type: QuantityType, version: TaskVersion) throws -> [Date] {
        let from = Int64((version.effective.timeIntervalSince1970 * 1000).rounded(.up))
        let to = version.until.map { Int64(($0.timeIntervalSince1970 * 1000).rounded(.up)) } ?? Int64.max
        return try Int64.fetchAll(
            db,
            sql: """
                SELECT DISTINCT firstAt FROM sampleAggregate
                WHERE type = ? AND firstAt >= ? AND firstAt < ? AND patientID IS ? ORDER BY firstAt
                """,
            arguments: [type.rawValue, from, to, version.patient]
        ).map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }
}
