import ArgumentParser
import BridgeCore
import BridgeFoundation
import CareStore
import Foundation
import GATTDecoding
import Insights
import SampleExport

struct Samples: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List stored samples, and release or delete one.",
        discussion: """
            Examples:
              carebridge samples --type bodyMass --from 2026-11-01
              carebridge samples --quarantined
              carebridge samples delete 0193f0c2-…
            """,
        subcommands: [SamplesList.self, SamplesRelease.self, SamplesDelete.self, SamplesAssign.self],
        defaultSubcommand: SamplesList.self
    )
}

struct SamplesList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List stored samples by measurement time (the default of `carebridge samples`).",
        discussion: """
            --unmatched lists only samples that fed no event: outside every window of a linked task, or before \
            the task's effective date. --quarantined lists only quarantined samples: device samples the safety \
            stage kept but does not use (an implausible value, or a device status saying the value is invalid), \
            with the reason; they complete no event and are neither published nor exported until released \
            (`carebridge samples release ID --reason …`). A LO/HI reading (beyond the device's range) shows its \
            comparator: `< 20` is below the meter's limit of 20, `LO` alone below an unknown limit.

            JSON (--json): an array of samples with id, type, value (null for LO/HI with an unknown limit), \
            comparator and interpretation (LO/HI), statusFlags, quarantine (the reason), releaseReason, unit, \
            start, end, transmitted value and unit, source, device time, receivedAt, recordedAt, payload and \
            metadata.

            Samples past a retention horizon that `carebridge store vacuum` replaced by aggregates are listed \
            as one row per aggregate, placed at its first sample, marked `aggregate of N` with the mean as value \
            and min–max (no id: the raw samples are gone). In JSON such a row has `"aggregate": {"count", \
            "mean", "sum", "min", "minAt", "max", "maxAt", "first", "firstAt", "last", "lastAt", "bucketStart", \
            "bucketEnd"}` and no id. A range straddling the horizon returns raw samples and aggregates, never \
            the same sample twice; --limit counts both. --unmatched, --quarantined and --unassigned list raw \
            samples only (those are never aggregated).

            Examples:
              carebridge samples list --type bodyMass --from 2026-11-01 --json
              carebridge samples list --unassigned

            \(StoreExit.help)
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: "Only this quantity type (repeatable), e.g. bodyMass.")
    var type: [String] = []

    @Option(name: .long, help: "Measured at or after (ISO-8601).")
    var from: String?

    @Option(name: .long, help: "Measured before (a bare date includes that day).")
    var to: String?

    @Flag(name: .long, help: "Only samples that completed no event.")
    var unmatched = false

    @Flag(name: .long, help: "Only quarantined samples (implausible or invalid by device status), with the reason.")
    var quarantined = false

    @Flag(
        name: .long,
        help: ArgumentHelp(
            "Only readings in the unassigned inbox (no owner, or a shared device that could not tell), with why.",
            discussion: "File one with `carebridge samples assign ID PATIENT`."
        )
    )
    var unassigned = false

    @Option(name: .long, help: "At most this many samples.")
    var limit: Int?

    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    /// Samples read from the store at a time (hidden: for tests of the paging).
    @Option(name: .long, help: .hidden)
    var pageSize = 5_000

    func validate() throws {
        if let limit { try NumericOption.check(limit, "--limit", in: 1...Int(Int32.max)) }
        try NumericOption.check(pageSize, "--page-size", in: 1...1_000_000)
    }

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let selection = try SampleSelection(types: type, from: from, to: to, zone: zone)
        let query = SampleQuery(
            types: selection.types,
            from: selection.start,
            to: selection.end,
            unmatchedOnly: unmatched,
            quarantine: quarantined ? .only : .excluded,
            limit: limit,
            unassignedOnly: unassigned
        )
        let store = try await storeOptions.open(zone: zone, mode: .existing, patients: unassigned ? .any : .one)
        var headers = ["MEASURED", "TYPE", "VALUE", "AS SENT", "SOURCE", "STATUS", "ID"]
        if quarantined { headers.insert("QUARANTINED BECAUSE", at: 6) }
        if unassigned { headers.insert("UNASSIGNED BECAUSE", at: headers.count - 1) }
        var array = JSONArrayOutput(pretty: Output.isTerminal)
        // Printed a page at a time: the columns are as wide as the widest cell so far (a later page with a wider
        // cell widens them from there on).
        var widths: [Int]?
        do {
            try await SampleListRow.read(store, matching: query, pageSize: pageSize, limit: limit) { rows in
                if json {
                    for row in rows { array.append(Self.json(row, zone: zone)) }
                    return
                }
                var table = Table(headers)
                for row in rows { table.append(cells(row, zone: zone)) }
                let pageWidths = table.columnWidths(atLeast: widths ?? [])
                print(table.render(widths: pageWidths, header: widths == nil))
                widths = pageWidths
            }
        } catch let error as CareStoreError {
            throw StoreExit.fail(error)
        }
        if json {
            array.finish()
        } else if widths == nil {
            print(
                unassigned
                    ? "no unassigned readings"
                    : quarantined ? "no quarantined samples" : unmatched ? "no unmatched samples" : "no samples"
            )
        }
    }

    /// A row as JSON (`--json`).
    static func json(_ row: SampleListRow, zone: TimeZone) -> JSONValue {
        switch row {
        case .aggregate(let aggregate): return SampleListRow.json(aggregate, zone: zone)
        case .sample(let stored):
            guard case .object(var object) = stored.sample.json(in: zone) else { return .null }
            object["recordedAt"] = .string(Timestamp.format(stored.recordedAt, in: zone))
            if let release = stored.releaseReason { object["releaseReason"] = .string(release) }
            object["patient"] = stored.patientID.map(JSONValue.string) ?? .null
            if let reason = stored.inboxReason { object["unassigned"] = .string(reason) }
            return .object(object)
        }
    }

    /// A row's table cells, in the columns of the table's headers.
    func cells(_ row: SampleListRow, zone: TimeZone) -> [String] {
        guard case .sample(let stored) = row else {
            if case .aggregate(let aggregate) = row { return SampleListRow.cells(aggregate, zone: zone) }
            return []
        }
        let sample = stored.sample
        let source =
            sample.source.kind == .manual
            ? "manual" : (sample.source.device?.name ?? sample.source.device?.key ?? "device")
        var row = [
            TimeArguments.short(sample.start, zone: zone),
            sample.type.rawValue,
            Self.value(sample),
            sample.comparator == nil ? DisplayQuantity.transmitted(of: sample) : sample.comparator!.label,
            source,
            SampleScreening.flags(of: sample).joined(separator: ", "),
            sample.id.uuidString.lowercased(),
        ]
        if quarantined { row.insert(sample.quarantineReason ?? "", at: 6) }
        if unassigned { row.insert(stored.inboxReason ?? "", at: row.count - 1) }
        return row
    }

    /// The value as shown, at the device's resolution with the unit people use: `72.6 kg`, `< 20 mg/dL` for a
    /// LO at the meter's limit of 20, `LO` when the limit is unknown.
    static func value(_ sample: QuantitySample) -> String {
        guard let comparator = sample.comparator else { return DisplayQuantity.value(of: sample) }
        return sample.value.isFinite ? "\(comparator.rawValue) \(DisplayQuantity.value(of: sample))" : comparator.label
    }

    /// Reads a sample id argument.
    static func id(_ text: String) throws -> UUID {
        guard let id = UUID(uuidString: text.trimmingCharacters(in: .whitespaces)) else {
            Output.error("'\(text)' is not a sample id (a UUID, as `carebridge samples` lists it)")
            throw ExitCode(StoreExit.usage)
        }
        return id
    }
}

struct SamplesRelease: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "release",
        abstract: "Accept a quarantined sample: it then completes its events and is published and exported.",
        discussion: """
            A release is a clinical decision: --reason is required and kept with the sample (with the original \
            quarantine reason). Releasing re-derives the outcomes of the events the sample falls in and queues it \
            for MQTT when the outbox is enabled.

            Examples:
              carebridge samples release 0193f0c2-… --reason \\
                  "checked on the device display: 47.1 °C is a sauna reading"

            \(StoreExit.help)
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Argument(help: "The sample id (see `carebridge samples --quarantined`).")
    var id: String

    @Option(name: .long, help: "Why the sample is accepted (required).")
    var reason: String

    @Flag(name: .long, help: "Print the released sample as JSON.")
    var json = false

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let sampleID = try SamplesList.id(id)
        let store = try await storeOptions.open(zone: zone, patients: .any)
        let released: StoredSample? = try await StoreExit.attempt {
            try await store.releaseSample(id: sampleID, reason: reason)
        }
        guard let released else {
            Output.error(
                "no quarantined sample \(sampleID.uuidString.lowercased()) (list them with `carebridge samples --quarantined`)"
            )
            throw ExitCode(StoreExit.notFound)
        }
        await AlertReport.evaluate(store, from: released.sample.start, quiet: json)
        if json {
            guard case .object(var object) = released.sample.json(in: zone) else { return }
            object["releaseReason"] = released.releaseReason.map(JSONValue.string) ?? .null
            print(JSONValue.object(object).serialized(pretty: Output.isTerminal))
            return
        }
        let sample = released.sample
        print(
            "released \(sample.type.title) \(SamplesList.value(sample)) at "
                + "\(TimeArguments.short(sample.start, zone: zone)); its events were re-derived"
        )
    }
}

struct SamplesDelete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a sample (a mistyped reading, a quarantined one): outcomes are re-derived without it.",
        discussion: """
            The row stays as a tombstone, so re-importing the same reading does not bring it back. Every event \
            the sample fed is derived again from the remaining samples.

            Examples:
              carebridge samples delete 0193f0c2-…

            \(StoreExit.help)
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Argument(help: "The sample id (see `carebridge samples`).")
    var id: String

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let sampleID = try SamplesList.id(id)
        let store = try await storeOptions.open(zone: zone, patients: .any)
        let deleted: Bool
        let start: Date?
        do {
            start = try await store.sample(id: sampleID)?.sample.start
            deleted = try await store.deleteSample(id: sampleID)
        } catch {
            throw StoreExit.fail(error)
        }
        guard deleted else {
            Output.error("no sample \(sampleID.uuidString.lowercased()) (or it was already deleted)")
            throw ExitCode(StoreExit.notFound)
        }
        print("deleted sample \(sampleID.uuidString.lowercased()); its events were re-derived")
        // A deleted reading may withdraw the alerts it tripped (or, for trends, raise others).
        if let start { await AlertReport.evaluate(store, from: start) }
    }
}
