import ArgumentParser
import BridgeCore
import CareStore
import Foundation
import GATTDecoding

struct Samples: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List stored samples by measurement time.",
        discussion: """
            --unmatched lists only samples that fed no event: outside every window of a linked task, or before \
            the task's effective date. JSON (--json): an array of samples with id, type, value, unit, start, \
            end, transmitted value and unit, source, device time, receivedAt, recordedAt, payload and metadata.

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

    @Option(name: .long, help: "At most this many samples.")
    var limit: Int?

    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    func validate() throws {
        if let limit { try NumericOption.check(limit, "--limit", in: 1...Int(Int32.max)) }
    }

    func run() throws {
        let zone = try global.resolvedTimeZone()
        var types = Set<QuantityType>()
        for text in type {
            do {
                types.insert(try ManualReading.parseType(text))
            } catch {
                Output.error(error.description)
                throw ExitCode(StoreExit.usage)
            }
        }
        let query = SampleQuery(
            types: types,
            from: try from.map { try TimeArguments.parse($0, option: "--from", zone: zone) },
            to: try to.map { try TimeArguments.parseEnd($0, option: "--to", zone: zone) },
            unmatchedOnly: unmatched,
            limit: limit
        )
        let store = try storeOptions.open(zone: zone, mode: .existing)
        let samples: [StoredSample]
        do {
            samples = try store.samples(matching: query)
        } catch {
            throw StoreExit.fail(error)
        }
        if json {
            let array = samples.map { stored -> JSONValue in
                guard case .object(var object) = stored.sample.json(in: zone) else { return .null }
                object["recordedAt"] = .string(Timestamp.format(stored.recordedAt, in: zone))
                return .object(object)
            }
            print(JSONValue.array(array).serialized(pretty: Output.isTerminal))
            return
        }
        if samples.isEmpty {
            print(unmatched ? "no unmatched samples" : "no samples")
            return
        }
        var table = Table(["MEASURED", "TYPE", "VALUE", "UNIT", "AS SENT", "SOURCE", "ID"])
        for stored in samples {
            let sample = stored.sample
            let source =
                sample.source.kind == .manual
                ? "manual" : (sample.source.device?.name ?? sample.source.device?.key ?? "device")
            table.append([
                TimeArguments.short(sample.start, zone: zone),
                sample.type.rawValue,
                Events.number(sample.value),
                sample.unit.rawValue,
                "\(Events.number(sample.transmittedValue)) \(sample.transmittedUnit)",
                source,
                sample.id.uuidString.lowercased(),
            ])
        }
        print(table.render())
    }
}
