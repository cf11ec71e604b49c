import ArgumentParser
import BridgeCore
import BridgeFoundation
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

            --replace ID corrects a reading typed in by hand (a typo): the old one is deleted (a tombstone that \
            a re-import does not bring back, retracted in FHIR exports as entered-in-error and over MQTT), the \
            new one is stored at the old one's time unless --at is given, and the events either fed are derived \
            again, all in one step. Device samples are not replaced; `carebridge samples delete ID` removes one.

            Examples:
              carebridge ingest bodyMass 72.4 kg
              carebridge ingest bodyMass 72.4 kg --replace 01a1f7a5-ca40-8cfe-a589-6f94caf9e635
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

    @Option(name: .long, help: "Replace this manual reading (its id, from `carebridge samples`).")
    var replace: String?

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
        let replacing = try replace.map(SamplesList.id)
        var replacingStore: CareStore?
        var replacedStart: Date?
        if let replacing {
            let opened = try storeOptions.open(zone: zone)
            replacingStore = opened
            let old: StoredSample?
            do {
                old = try opened.sample(id: replacing)
            } catch {
                throw StoreExit.fail(error)
            }
            guard let old, old.deletedDate == nil else {
                Output.error(
                    "no live sample \(replacing.uuidString.lowercased()) to replace (see `carebridge samples`)"
                )
                throw ExitCode(StoreExit.notFound)
            }
            replacedStart = old.sample.start
        }
        let measured =
            try at.map { try TimeArguments.parse($0, option: "--at", zone: zone, now: now) } ?? replacedStart ?? now
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
        let store = try replacingStore ?? storeOptions.open(zone: zone)
        let report: IngestReport
        do {
            if let replacing {
                report = try store.replaceManualSample(id: replacing, with: sample, recordedAt: now)
            } else {
                report = try store.recordSample(sample, recordedAt: now)
            }
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
            if let replacing { object["replaced"] = .string(replacing.uuidString.lowercased()) }
            if report.inserted == 0 { object["matched"] = .null }
            print(JSONValue.object(object).serialized(pretty: Output.isTerminal))
            return
        }
        let shown =
            "\(sample.type.title) \(format(sample.value)) \(sample.unit) at \(TimeArguments.short(sample.start, zone: zone))"
        if let replacing {
            print(
                "replaced \(replacing.uuidString.lowercased()) with \(shown); \(report.eventsUpdated) event(s) derived again"
            )
        } else if report.inserted == 0 {
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
