import ArgumentParser
import BridgeCore
import BridgeFoundation
import CareStore
import Foundation
import GATTDecoding
import Insights
import MQTTBridge
import SampleExport

struct Ingest: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record a reading typed in by hand and auto-complete the events it belongs to.",
        discussion: """
            TYPE is a quantity type (bodyMass, bodyTemperature, heartRate, bloodPressure, bloodGlucose, \
            oxygenSaturation, …; `body-mass` works too). The reading is written as people write it: a number \
            and a unit, with or without a space (72.4 kg, 72.4kg, 72,4 kg), stone and pounds (11 st, 11 st 4 lb), \
            and a blood pressure as systolic/diastolic (120/80 mmHg: one reading, stored as a systolic and a \
            diastolic sample at the same time). Units: kg, kgs, lb, lbs, st, °C, ºC, ℃, C, degC, °F, F, degF, \
            bpm, /min, mmHg, kPa, %, mg/dL, mmol/L, ms. A negative value is refused. The value is converted to \
            the type's canonical unit and checked for plausibility (e.g. body temperature 25–45 °C, body mass \
            0.2–650 kg, heart rate 20–300 /min); a refused reading writes nothing. The sample's source is \
            `manual`; recording the same reading (type, value, unit, time) twice for one patient changes \
            nothing (another patient's same reading, two beds weighed alike in one minute, is their own). An --at more \
            than 5 minutes in the future, or more than 7 days ago (a typo for the year re-evaluates a year of \
            rules), is refused without --force; the error says what recording it would re-evaluate.

            --replace ID corrects a reading typed in by hand (a typo): the old one is deleted (a tombstone that \
            a re-import does not bring back, retracted in FHIR exports as entered-in-error and over MQTT), the \
            new one is stored at the old one's time unless --at is given, and the events either fed are derived \
            again, all in one step. Device samples are not replaced; `carebridge samples delete ID` removes one.

            --mqtt URL publishes the reading (and whatever the outbox still holds) as `replay --mqtt` does, \
            without the daemon; exit 75 when some is still pending after --mqtt-wait (kept for the next run).

            Examples:
              carebridge ingest bodyMass 72.4 kg
              carebridge ingest bodyMass 11 st 4 lb
              carebridge ingest bloodPressure 120/80 mmHg --at 07:30
              carebridge ingest bodyMass 72.4 kg --mqtt mqtts://broker.home:8883
              carebridge ingest bodyMass 72.4 kg --replace \\
                  01a1f7a5-ca40-8cfe-a589-6f94caf9e635
              carebridge ingest bodyTemperature 98.6 °F --at 2026-11-20T07:30 --note \\
                  "after waking"

            \(StoreExit.help)
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions
    @OptionGroup var mqtt: MQTTOptions

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

    @Flag(name: .long, help: "Accept a --at in the future or more than 7 days ago.")
    var force = false

    @Flag(name: .long, help: "Print the stored sample and the result as JSON.")
    var json = false

    @Argument(help: "The quantity type, e.g. bodyMass.")
    var type: String

    @Argument(
        parsing: .allUnrecognized,
        help: ArgumentHelp(
            "The value and its unit, e.g. 72.4 kg, 72.4kg, 11 st 4 lb, 98.6°F, 120/80 mmHg.",
            valueName: "reading"
        )
    )
    var reading: [String] = []

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let now = Date()
        let replacing = try replace.map(SamplesList.id)
        var replacingStore: CareStore?
        var replacedStart: Date?
        if let replacing {
            let opened = try await storeOptions.open(zone: zone)
            replacingStore = opened
            let old: StoredSample? = try await StoreExit.attempt { try await opened.sample(id: replacing) }
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
        if let option = reading.first(where: { $0.hasPrefix("--") && DecimalNumber.parse($0) == nil }) {
            throw ValidationError("unknown option '\(option)'")
        }
        let samples: [QuantitySample]
        do {
            samples = try ManualReadingText.samples(
                type: type,
                words: reading,
                at: measured,
                note: note,
                receivedAt: now
            )
        } catch {
            Output.error(error.description)
            switch error {
            case .implausible, .notFinite, .negative, .bloodPressureOrder: throw ExitCode(StoreExit.invalidData)
            default: throw ExitCode(StoreExit.usage)
            }
        }
        if replacing != nil, samples.count > 1 {
            Output.error(
                "--replace corrects one sample; replace the systolic and the diastolic one at a time "
                    + "(e.g. `bloodPressureSystolic 120 mmHg --replace ID`)"
            )
            throw ExitCode(StoreExit.usage)
        }
        if at != nil, replacingStore == nil, !FileManager.default.fileExists(atPath: storeOptions.path) {
            // Refused before a store is created for it (a new store has nothing to re-evaluate).
            try await StoreExit.attempt {
                try CareStore.checkManualReadingTime(
                    measured,
                    types: Set(samples.map(\.type)),
                    now: now,
                    zone: zone,
                    force: force,
                    versions: []
                )
            }
        }
        let store = if let replacingStore { replacingStore } else { try await storeOptions.open(zone: zone) }
        // With --mqtt, queueing is on before the reading is stored; it is delivered before the command ends.
        let publisher = try mqtt.makeConnection(publisher: nil, logger: CLILogging.logger).map {
            mqtt.makePublisher(store: store, connection: $0, zone: zone, logger: CLILogging.logger)
        }
        if let publisher { try await mqtt.start(publisher) }
        let report: IngestReport
        do {
            if at != nil {
                try await store.checkManualReadingTime(
                    measured,
                    types: Set(samples.map(\.type)),
                    now: now,
                    force: force
                )
            }
            if let replacing {
                report = try await store.replaceManualSample(id: replacing, with: samples[0], recordedAt: now)
            } else {
                report = try await store.recordSamples(samples, recordedAt: now)
            }
        } catch {
            throw StoreExit.fail(error)
        }
        let stored = samples.map(report.stored)
        let sample = stored[0]
        let inserted = report.inserted > 0
        let types = Set(samples.map(\.type))
        if json, inserted { await AlertReport.evaluate(store, from: sample.start, types: types, quiet: true) }
        if json {
            var object: JSONObject = [
                "sample": sample.json(in: zone),
                "samples": .array(stored.map { $0.json(in: zone) }),
                "inserted": .bool(inserted),
                "eventsUpdated": .int(report.eventsUpdated),
                "matched": .bool(inserted ? report.unmatched == 0 : false),
            ]
            if let replacing { object["replaced"] = .string(replacing.uuidString.lowercased()) }
            if !inserted { object["matched"] = .null }
            print(JSONValue.object(object).serialized(pretty: Output.isTerminal))
            try await deliver(publisher)
            return
        }
        let shown = Self.describe(samples) + " at \(TimeArguments.short(sample.start, zone: zone))"
        if let replacing {
            print(
                "replaced \(replacing.uuidString.lowercased()) with \(shown); \(report.eventsUpdated) event(s) derived again"
            )
        } else if !inserted {
            print("already recorded: \(shown) (nothing changed)")
        } else if report.unmatched == report.inserted {
            print("recorded \(shown); it falls in no linked event (kept as unmatched)")
        } else {
            print("recorded \(shown); completed or updated \(report.eventsUpdated) event(s)")
        }
        if inserted { await AlertReport.evaluate(store, from: sample.start, types: types) }
        try await deliver(publisher)
    }

    /// With --mqtt: what the outbox holds (this reading, and any left by earlier runs) goes to the broker; exit 75
    /// when some is still pending after --mqtt-wait (it stays queued for the next run with --mqtt).
    func deliver(_ publisher: OutboxService<SampleStateChannel>?) async throws {
        guard let publisher else { return }
        if await mqtt.deliverOnce(publisher) > 0 { throw ExitCode(MQTTOptions.pendingExit) }
    }

    /// `body mass 72.4 kg`; a blood pressure as `blood pressure 120/80 mmHg`; at the resolution typed.
    static func describe(_ samples: [QuantitySample]) -> String {
        if samples.count == 2, let high = samples.first, let low = samples.last {
            let number = { (sample: QuantitySample) in
                DisplayQuantity.number(sample.value, decimals: DisplayQuantity.decimals(of: sample))
            }
            return "blood pressure \(number(high))/\(number(low)) \(DisplayQuantity.symbol(high.unit))"
        }
        return samples.map { "\($0.type.title) \(DisplayQuantity.value(of: $0))" }.joined(separator: ", ")
    }
}
