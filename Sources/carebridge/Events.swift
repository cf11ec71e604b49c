import ArgumentParser
import BridgeCore
import BridgeFoundation
import CarePlan
import CareStore
import Foundation
import SampleExport

struct Events: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the events of the care plan in an interval, with their outcomes.",
        discussion: """
            Events overlapping [--from, --to) are listed, sorted by start then task. --from defaults to the \
            start of today, --to to one day after --from; a bare date for --to means the end of that day. \
            Times are shown in --time-zone (default TZ, then the system zone).

            JSON (--json): an array of {"task", "occurrence", "start", "end", "completed", "values": [{"value", \
            "unit", "comparator", "at", "sample"}]}, where "sample" is the id of the sample a value came from, or \
            null, and "comparator" is "<"/">" for a LO/HI reading (its value the device's limit, null if unknown); \
            an answer's words are in the value's "text", a note in "note", and an event marked not done has \
            "notDone" with the reason.

            Examples:
              carebridge events
              carebridge events --from 2026-11-16 --to 2026-11-22 --task bp --json

            \(StoreExit.help)
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: "Interval start (ISO-8601 date or time).")
    var from: String?

    @Option(name: .long, help: "Interval end (exclusive; a bare date includes that day).")
    var to: String?

    @Option(name: .long, help: "Only this task (repeatable).")
    var task: [String] = []

    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let start =
            try from.map { try TimeArguments.parse($0, option: "--from", zone: zone) }
            ?? TimeArguments.startOfDay(Date(), zone: zone)
        let end =
            try to.map { try TimeArguments.parseEnd($0, option: "--to", zone: zone) }
            ?? TimeArguments.startOfDay(start.addingTimeInterval(36 * 3600), zone: zone)
        try TimeArguments.checkOrder(start, end, from: from, to: to)
        let store = try await storeOptions.open(zone: zone, mode: .existing)
        var unknown: String?
        var keys: [String] = []
        do {
            if !task.isEmpty {
                // What was typed names a task within the patient; the store keys it store-wide.
                keys = try await store.taskKeys(for: task)
                let ids = try await store.taskIDs()
                unknown = zip(task, keys).first { !ids.contains($0.1) }?.0
            }
        } catch {
            throw StoreExit.fail(error)
        }
        if let unknown {
            Output.error(await UnknownName.task(unknown, in: store))
            throw ExitCode(StoreExit.notFound)
        }
        let events: [CareEvent] = try await StoreExit.attempt {
            try await store.events(matching: EventQuery(from: start, to: end, taskIDs: Set(keys)))
        }
        if json {
            let array = events.map { event -> JSONValue in
                let values = (event.outcome?.values ?? []).map { value -> JSONValue in
                    var object: JSONObject = [
                        "value": value.value.isFinite ? .double(value.value) : .null,
                        "unit": .string(value.unit.rawValue),
                        "comparator": value.comparator.map { .string($0.rawValue) } ?? .null,
                        "at": .string(Timestamp.format(value.measuredAt, in: zone)),
                        "sample": value.sampleID.map { .string($0.uuidString.lowercased()) } ?? .null,
                    ]
                    if let text = value.text { object["text"] = .string(text) }
                    return .object(object)
                }
                var object: JSONObject = [
                    "task": .string(Self.label(event, store)),
                    "occurrence": .int(event.occurrence),
                    "start": .string(Timestamp.format(event.start, in: zone)),
                    "end": .string(Timestamp.format(event.end, in: zone)),
                    "completed": .bool(event.isCompleted),
                    "values": .array(values),
                ]
                if let note = event.outcome?.note { object["note"] = .string(note) }
                if let reason = event.outcome?.notDoneReason { object["notDone"] = .string(reason) }
                if event.taskName != event.taskID { object["key"] = .string(event.taskID) }
                return .object(object)
            }
            print(JSONValue.array(array).serialized(pretty: Output.isTerminal))
            return
        }
        if events.isEmpty {
            print("no events")
            return
        }
        var table = Table(["START", "END", "TASK", "TITLE", "#", "DONE", "VALUES"])
        for event in events {
            var values: [String] = []
            for value in event.outcome?.values ?? [] {
                if let format = event.answer {
                    values.append(format.display(value: value.value, text: value.text))
                } else if value.unit.rawValue == "1" {
                    values.append("done \(TimeArguments.short(value.measuredAt, zone: zone))")
                } else {
                    // At the resolution of the sample it came from, when it came from one.
                    var sample: QuantitySample?
                    if let id = value.sampleID { sample = try? await store.sample(id: id)?.sample }
                    values.append(Self.quantity(value.value, value.unit, comparator: value.comparator, sample: sample))
                }
            }
            if let reason = event.outcome?.notDoneReason { values.append("not done: \(reason)") }
            if let note = event.outcome?.note { values.append("note: \(note)") }
            let (start, end) = Self.window(event, zone: zone)
            table.append([
                start,
                end,
                Self.label(event, store),
                event.title,
                String(event.occurrence),
                event.isCompleted ? "yes" : (event.progress > 0 ? "\(Int(event.progress * 100))%" : "no"),
                values.joined(separator: ", "),
            ])
        }
        print(table.render())
    }

    /// The task as the listing names it: its name within one patient's listing, else its store-wide key
    /// (`bp@bed-2` where several patients have a `bp`).
    static func label(_ event: CareEvent, _ store: CareStore) -> String {
        store.patientScope != nil ? event.taskName : event.taskID
    }

    /// The START and END cells: an all-day event as its date in the task's own zone (the day it was planned
    /// for, wherever it is shown) and `all day`; an end on the start's day as its time only.
    static func window(_ event: CareEvent, zone: TimeZone) -> (String, String) {
        if event.isAllDay {
            return (String(TimeArguments.short(event.start, zone: event.timeZone).prefix(10)), "all day")
        }
        let start = TimeArguments.short(event.start, zone: zone)
        let end = TimeArguments.short(event.end, zone: zone)
        return (start, end.prefix(11) == start.prefix(11) ? String(end.dropFirst(11)) : end)
    }

    /// `72.4 kg` (at the resolution of `sample` when given); a LO/HI value as `< 20 mg/dL (LO)`, or `LO` alone
    /// when the limit is unknown.
    static func quantity(
        _ value: Double,
        _ unit: HealthUnit,
        comparator: ValueComparator?,
        sample: QuantitySample? = nil
    ) -> String {
        let symbol = DisplayQuantity.symbol(unit)
        let shown =
            sample.map {
                DisplayQuantity.number(
                    value,
                    decimals: DisplayQuantity.decimals(
                        transmitted: $0.transmittedValue,
                        in: $0.transmittedUnit,
                        shownIn: unit
                    )
                )
            } ?? number(value)
        guard let comparator else { return "\(shown) \(symbol)" }
        guard value.isFinite else { return "\(comparator.label) (limit unknown) \(symbol)" }
        return "\(comparator.rawValue) \(shown) \(symbol) (\(comparator.label))"
    }

    static func number(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int64(rounded)) : String(rounded)
    }
}
