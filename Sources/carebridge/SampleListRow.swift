import BridgeCore
import BridgeFoundation
import CareStore
import Foundation
import SampleExport

/// A row of `carebridge samples`: a raw sample, or an aggregate that replaced vacuumed samples.
enum SampleListRow {
    case sample(StoredSample)
    case aggregate(SampleAggregate)

    var time: Date {
        switch self {
        case .sample(let stored): stored.sample.start
        case .aggregate(let aggregate): aggregate.firstAt
        }
    }

    /// The rows of `query` in measurement order (an aggregate at its first sample), at most `limit` in all, handed
    /// to `body` a page at a time: raw samples through the store's cursor (`pageSize` at a time), the aggregates
    /// of vacuumed samples (one per bucket: few) merged in. Holds one page, never the period.
    static func read(
        _ store: CareStore,
        matching query: SampleQuery,
        pageSize: Int,
        limit: Int?,
        _ body: ([SampleListRow]) throws -> Void
    ) async throws {
        var aggregates = try await store.sampleAggregates(matching: query)[...]
        var remaining = limit ?? .max
        var cursor = store.sampleCursor(matching: query, pageSize: pageSize)
        while remaining > 0, let page = try await cursor.next() {
            var rows: [SampleListRow] = []
            rows.reserveCapacity(page.count)
            for stored in page {
                while let next = aggregates.first, next.firstAt <= stored.sample.start {
                    rows.append(.aggregate(next))
                    aggregates = aggregates.dropFirst()
                }
                rows.append(.sample(stored))
            }
            if rows.count > remaining { rows.removeLast(rows.count - remaining) }
            remaining -= rows.count
            try body(rows)
        }
        if remaining > 0, !aggregates.isEmpty { try body(aggregates.prefix(remaining).map(SampleListRow.aggregate)) }
    }

    /// Table cells in the columns of `carebridge samples` (MEASURED, TYPE, VALUE, AS SENT, SOURCE, STATUS, ID).
    static func cells(_ aggregate: SampleAggregate, zone: TimeZone) -> [String] {
        let symbol = DisplayQuantity.symbol(aggregate.unit)
        // At most one decimal for min and max, two for the mean (RR intervals are 1/1024 s: 760.7421875 ms).
        let decimals = min(
            1,
            max(DisplayQuantity.fractionDigits(aggregate.min), DisplayQuantity.fractionDigits(aggregate.max))
        )
        let mean = DisplayQuantity.number(aggregate.mean, decimals: decimals + 1)
        let range =
            "\(DisplayQuantity.number(aggregate.min, decimals: decimals))–\(DisplayQuantity.number(aggregate.max, decimals: decimals))"
        let source =
            aggregate.sourceKind == .manual ? "manual" : (aggregate.device?.name ?? aggregate.device?.key ?? "device")
        return [
            TimeArguments.short(aggregate.firstAt, zone: zone), aggregate.type.rawValue,
            "mean \(mean) \(symbol) (\(range))", "", source, "aggregate of \(aggregate.count)", "",
        ]
    }

    static func json(_ aggregate: SampleAggregate, zone: TimeZone) -> JSONValue {
        func time(_ date: Date) -> JSONValue { .string(Timestamp.format(date, in: zone)) }
        var object: JSONObject = [
            "type": .string(aggregate.type.rawValue), "value": .double(aggregate.mean),
            "unit": .string(aggregate.unit.rawValue), "start": time(aggregate.firstAt), "end": time(aggregate.lastAt),
        ]
        object["source"] = .string(aggregate.sourceKind.rawValue)
        object["device"] = aggregate.device.map { .string($0.name ?? $0.key) } ?? .null
        object["patient"] = aggregate.patientID.map(JSONValue.string) ?? .null
        object["aggregate"] = .object([
            "count": .int(aggregate.count), "mean": .double(aggregate.mean), "sum": .double(aggregate.sum),
            "min": .double(aggregate.min), "minAt": time(aggregate.minAt), "max": .double(aggregate.max),
            "maxAt": time(aggregate.maxAt), "first": .double(aggregate.first), "firstAt": time(aggregate.firstAt),
            "last": .double(aggregate.last), "lastAt": time(aggregate.lastAt),
            "bucketStart": time(aggregate.bucketStart), "bucketEnd": time(aggregate.bucketEnd),
        ])
        return .object(object)
    }
}
