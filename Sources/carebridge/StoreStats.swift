import ArgumentParser
import BridgeCore
import BridgeFoundation
import CareStore
import Foundation

struct StoreStats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Size of the store by table and by quantity type, and what retention would free.",
        discussion: """
            Table and index sizes are measured with SQLite's dbstat table; a type's bytes are its share, by row \
            count, of the tables that hold raw samples (marked "≈"; without dbstat, the used pages of the whole \
            file stand in, and the output says so). "would free" is what `carebridge store vacuum` would delete \
            now under the stored retention policy (raw samples past their horizon, less the aggregates that \
            replace them); "kept" means the type has no rule and nothing of it is ever deleted. Changes nothing.

            JSON (--json): {"file": {"bytes", "walBytes", "freeBytes"}, "measured", "objects": [{"name", "table", \
            "bytes"}], "types": [{"type", "samples", "quarantined", "tombstones", "estimatedBytes", \
            "aggregates", "aggregatedSamples", "oldest", "newest", "retention": null | {"keepRawDays", \
            "aggregateMinutes", "horizon", "samplesToAggregate", "aggregatesToWrite", "wouldFreeBytes"}}], \
            "bytesPerAggregate"}.

            Examples:
              carebridge store stats
              carebridge store stats --json

            \(StoreExit.help)
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Option(
        name: .customLong("as-of"),
        help: ArgumentHelp(
            "Count retention horizons back from this instant instead of now (ISO-8601).",
            valueName: "time"
        )
    )
    var asOf: String?

    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let now = try asOf.map { try TimeArguments.parse($0, option: "--as-of", zone: zone) } ?? Date()
        let store = try await storeOptions.open(zone: zone, mode: .existing, patients: .any)
        let stats: StoreStatistics = try await StoreExit.attempt { try await store.statistics(now: now) }
        if json {
            print(JSONValue.object(Self.json(stats, zone: zone)).serialized(pretty: Output.isTerminal))
            return
        }
        print(
            "store \(storeOptions.path): \(Self.bytes(stats.fileBytes)) (+ \(Self.bytes(stats.walBytes)) write-ahead "
                + "log, \(Self.bytes(stats.freeBytes)) free inside)"
        )
        if stats.measured {
            var tables = Table(["TABLE OR INDEX", "OF TABLE", "BYTES"])
            for object in stats.objects.prefix(12) {
                tables.append([object.name, object.table, Self.bytes(object.bytes)])
            }
            print(tables.render())
        } else {
            print(
                "(this SQLite has no dbstat table: byte figures below are estimates from the whole file's used pages)"
            )
        }
        var table = Table(["TYPE", "SAMPLES", "≈ BYTES", "AGGREGATES", "OLDEST", "RETENTION", "WOULD FREE"])
        for row in stats.types {
            let retention = row.rule.map { "raw \($0.keepRawDays) d, then \($0.aggregateMinutes) min" } ?? "kept"
            let free = row.rule.map { "\(Self.bytes(row.wouldFreeBytes ?? 0)) (\($0.samples) samples)" } ?? "—"
            let aggregates = row.aggregates == 0 ? "0" : "\(row.aggregates) (of \(row.aggregatedSamples))"
            table.append([
                row.type.rawValue, "\(row.samples)", Self.bytes(row.estimatedBytes), aggregates,
                row.oldest.map { TimeArguments.short($0, zone: zone) } ?? "—", retention, free,
            ])
        }
        print(table.render())
    }

    static func json(_ stats: StoreStatistics, zone: TimeZone) -> JSONObject {
        var object: JSONObject = [
            "file": .object([
                "bytes": .int(stats.fileBytes), "walBytes": .int(stats.walBytes), "freeBytes": .int(stats.freeBytes),
            ]),
            "measured": .bool(stats.measured),
        ]
        object["objects"] = .array(
            stats.objects.map {
                .object(["name": .string($0.name), "table": .string($0.table), "bytes": .int($0.bytes)])
            }
        )
        object["types"] = .array(
            stats.types.map { row in
                var item: JSONObject = [
                    "type": .string(row.type.rawValue), "samples": .int(row.samples),
                    "quarantined": .int(row.quarantined), "tombstones": .int(row.tombstones),
                    "estimatedBytes": .int(row.estimatedBytes),
                    "aggregates": .int(row.aggregates), "aggregatedSamples": .int(row.aggregatedSamples),
                ]
                item["oldest"] = row.oldest.map { .string(Timestamp.format($0, in: zone)) } ?? .null
                item["newest"] = row.newest.map { .string(Timestamp.format($0, in: zone)) } ?? .null
                item["retention"] =
                    row.rule.map { step in
                        .object([
                            "keepRawDays": .int(step.keepRawDays), "aggregateMinutes": .int(step.aggregateMinutes),
                            "horizon": .string(Timestamp.format(step.horizon, in: zone)),
                            "samplesToAggregate": .int(step.samples), "aggregatesToWrite": .int(step.aggregates),
                            "wouldFreeBytes": .int(row.wouldFreeBytes ?? 0),
                        ])
                    } ?? .null
                return .object(item)
            }
        )
        object["bytesPerAggregate"] = .int(stats.bytesPerAggregate)
        return object
    }

    /// `43.1 MB`, `812 KB`, `96 B` (decimal units).
    static func bytes(_ count: Int) -> String {
        let value = Double(count)
        if value >= 1e9 { return String(format: "%.2f GB", value / 1e9) }
        if value >= 1e6 { return String(format: "%.1f MB", value / 1e6) }
        if value >= 1e3 { return String(format: "%.0f KB", value / 1e3) }
        return "\(count) B"
    }
}
