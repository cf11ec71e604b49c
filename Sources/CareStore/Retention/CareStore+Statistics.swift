import BridgeCore
public import Foundation
import GRDB

extension CareStore {
    /// Size by type and what the retention policy would free now.
    ///
    /// Table and index sizes come from SQLite's `dbstat` virtual table when this SQLite has it (``StoreStatistics/measured``);
    /// a type's bytes are its share, by row count, of the tables that hold raw samples. Without `dbstat` the
    /// used pages of the whole file stand in for those tables (an over-estimate, and said so).
    public func statistics(now: Date = Date()) async throws(CareStoreError) -> StoreStatistics {
        let path = databaseWriter.path
        let plan = try await retentionPlan(now: now)
        return try await read { db in
            let pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            let free = try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
            var objects: [StoreStatistics.Object] = []
            var measured = true
            do {
                objects = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT s.name, coalesce(m.tbl_name, s.name), sum(s.pgsize) FROM dbstat AS s
                        LEFT JOIN sqlite_master AS m ON m.name = s.name GROUP BY s.name ORDER BY 3 DESC
                        """
                ).map { StoreStatistics.Object(name: $0[0], table: $0[1], bytes: $0[2]) }
            } catch {
                measured = false
            }
            let sampleBytes =
                measured
                ? objects.filter { SampleRetentionSQL.sampleTables.contains($0.table) }.reduce(0) { $0 + $1.bytes }
                : (pages - free) * pageSize
            let aggregateObjects = objects.filter { $0.table == "sampleAggregate" }.reduce(0) { $0 + $1.bytes }
            let aggregateRows = try Int.fetchOne(db, sql: "SELECT count(*) FROM sampleAggregate") ?? 0
            // Measured once there are a few pages of aggregates; before that the width of a row (about 20
            // columns, most of them 8-byte numbers) plus its index entry.
            let bytesPerAggregate =
                measured && aggregateRows >= 1_000 ? aggregateObjects / aggregateRows : 150
            var aggregates: [String: (rows: Int, samples: Int)] = [:]
            for row in try Row.fetchAll(
                db,
                sql: "SELECT type, count(*), sum(count) FROM sampleAggregate GROUP BY type"
            ) {
                aggregates[row[0]] = (row[1], row[2])
            }
            let counts = try SampleRetentionSQL.countsByType(db)
            let totalRows = counts.reduce(0) { $0 + $1.live + $1.deleted }
            var types: [StoreStatistics.TypeRow] = []
            var names = Set(counts.map(\.type)).union(aggregates.keys)
            for step in plan { names.insert(step.type.rawValue) }
            for name in names.sorted() {
                guard let type = QuantityType(rawValue: name) else { continue }
                let count = counts.first { $0.type == name }
                let rows = (count?.live ?? 0) + (count?.deleted ?? 0)
                let estimated = totalRows > 0 ? Int(Double(sampleBytes) * Double(rows) / Double(totalRows)) : 0
                let step = plan.first { $0.type == type }
                let perSample = rows > 0 ? Double(estimated) / Double(rows) : 0
                types.append(
                    StoreStatistics.TypeRow(
                        type: type,
                        samples: count?.live ?? 0,
                        quarantined: count?.quarantined ?? 0,
                        tombstones: count?.deleted ?? 0,
                        estimatedBytes: estimated,
                        aggregates: aggregates[name]?.rows ?? 0,
                        aggregatedSamples: aggregates[name]?.samples ?? 0,
                        oldest: count?.oldest.map(SampleTable.date),
                        newest: count?.newest.map(SampleTable.date),
                        rule: step,
                        wouldFreeBytes: step.map {
                            max(0, Int(perSample * Double($0.samples)) - $0.aggregates * bytesPerAggregate)
                        }
                    )
                )
            }
            return StoreStatistics(
                fileBytes: Self.fileSize(path),
                walBytes: Self.fileSize(path + "-wal"),
                freeBytes: free * pageSize,
                objects: objects,
                measured: measured,
                types: types,
                bytesPerAggregate: bytesPerAggregate
            )
        }
    }
}
