import ArgumentParser
import BridgeCore
import CareStore
import Foundation
import GATTDecoding
import Insights

struct Ingest: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record a reading typed in by hand and auto-complete the events it belongs to.",
        discussion: """
            TYPE is a quantity type (bodyMass, bodyTemperature, heartRate, bloodPressureSystolic, bloodGlucose, \
            oxygenSaturation, …; `body-mass` works too). UNIT accepts the spellings people type: kg, lb, lbs, \
            °C, C, degC, °F, F, degF, bpm, /min, mmHg, kPa, %, mg/dL, mmol/L, ms. The value is converted to \
            the type's canonical unit and checked for plausibility (e.g. body temperature 25–45 °C, body mass \
            0.2–650 kg, heart rate 20–300 /min); a refused reading writes nothing. The sample's source is \
            `manual`; recording the same reading (type, value, unit, time) twice changes nothing.

            Examples:
              carebridge ingest bodyMass 72.4 kg
              carebridge ingest bodyTemperature 98.6 °F --at 2026-11-20T07:30 --note "after waking"

            \(StoreExit.help)
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Option(
        name: .long,
        help: """
            When it was measured (default now): ISO-8601 (2026-11-20T07:30, with an offset or without: \
            --time-zone), a bare time (07:30: today), today or yesterday.
            """
    )
    var at: String?

    @Option(name: .long, help: "A note kept with the sample.")
    var note: String?

    @Flag(name: .long, help: "Print the stored sample and the result as JSON.")
    var json = false

    @Argument(help: "The quantity type, e.g. bodyMass.")
    var type: String

    @Argument(help: "The value, e.g. 72.4.")
    var value: String

    @Argument(help: "The unit, e.g. kg.")
    var unit: String

    func run() throws {
        let zone = try global.resolvedTimeZone()
        let now = Date()
        let measured = try at.map { try TimeArguments.parse($0, option: "--at", zone: zone, now: now) } ?? now
        guard let number = DecimalArgument.parse(value), number.isFinite else {
            Output.error("'\(value)' is not a decimal number (such as 72.4 or 72,4)")
            throw ExitCode(StoreExit.usage)
        }
        let sample: QuantitySample
        do {
            let quantityType = try ManualReading.parseType(type)
            sample = try ManualReading.sample(
                type: quantityType,
                value: number,
                unit: unit,
                at: measured,
                note: note,
                receivedAt: now
            )
        } catch {
            Output.error(error.description)
            switch error {
            case .implausible, .notFinite: throw ExitCode(StoreExit.invalidData)
            case .unknownType, .unknownUnit, .incompatibleUnit: throw ExitCode(StoreExit.usage)
            }
        }
        let store = try storeOptions.open(zone: zone)
        let report: IngestReport
        do {
            report = try store.recordSample(sample, recordedAt: now)
        } catch {
            throw StoreExit.fail(error)
        }
        if json, report.inserted == 1 { AlertReport.evaluate(store, from: sample.start, quiet: true) }
        if json {
            var object: JSONObject = [
                "sample": sample.json(in: zone),
                "inserted": .bool(report.inserted == 1),
                "eventsUpdated": .int(report.eventsUpdated),
                "matched": .bool(report.inserted == 1 ? report.unmatched == 0 : false),
            ]
            if report.inserted == 0 { object["matched"] = .null }
            print(JSONValue.object(object).serialized(pretty: Output.isTerminal))
            return
        }
        let shown =
            "\(sample.type.title) \(format(sample.value)) \(sample.unit) at \(TimeArguments.short(sample.start, zone: zone))"
        if report.inserted == 0 {
            print("already recorded: \(shown) (nothing changed)")
        } else if report.unmatched == 1 {
            print("recorded \(shown); it falls in no linked event (kept as unmatched)")
        } else {
            print("recorded \(shown); completed or updated \(report.eventsUpdated) event(s)")
        }
        if report.inserted == 1 { AlertReport.evaluate(store, from: sample.start) }
    }

    private func format(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        return rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int64(rounded)) : String(rounded)
    }
}
