import ArgumentParser
import BridgeCore
import BridgeFoundation
import CarePlan
import CareStore
import Foundation

struct Today: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The day across patients: per patient what is done, due, late and missed, and open alerts.",
        discussion: """
            For every patient (by name, in natural order: bed-2 before bed-10), or only --patient, the events of \
            --day (default the day of --at, itself default now) and where each stands at --at: done; not done (marked, with a reason); \
            due (its window is open or still ahead); late (its window has ended but the day is not over: \
            `carebridge complete TASK` still takes it, recorded at the time given); missed (its window ended \
            on a day that is over). Then the patient's open alerts (`carebridge alerts --patient ID`).

            JSON (--json): [{"patient", "name", "counts": {"done", "notDone", "due", "late", "missed"}, \
            "openAlerts", "worstAlert", "events": [{"task", "title", "occurrence", "start", "end", "state"}]}], \
            "patient" null in a store without patients.

            Examples:
              carebridge today
              carebridge today --patient bed-2
              carebridge today --day yesterday --json

            \(StoreExit.help)
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: "The day to show (YYYY-MM-DD, today, yesterday; default the day of --at).")
    var day: String?

    @Option(name: .long, help: "The moment the states are seen from (ISO-8601 time or HH:MM; default now).")
    var at: String?

    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    @OptionGroup var color: ColorOption

    /// One patient's day.
    struct Row {
        var patient: Patient?
        var events: [(event: CareEvent, state: EventState)]
        var openAlerts: [Alert]

        func count(_ state: EventState) -> Int { events.filter { $0.state == state }.count }
    }

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let now = try at.map { try TimeArguments.parse($0, option: "--at", zone: zone) } ?? Date()
        let store = try await storeOptions.open(zone: zone, mode: .existing, patients: .any)
        let dayStart = TimeArguments.startOfDay(
            try day.map { try TimeArguments.parse($0, option: "--day", zone: zone) } ?? now,
            zone: zone
        )
        let dayEnd = TimeArguments.startOfDay(dayStart.addingTimeInterval(36 * 3600), zone: zone)
        var rows: [Row] = []
        do {
            let everyone = try await store.patients()
            let patients: [Patient?] =
                everyone.isEmpty ? [nil] : everyone.filter { store.patientScope == nil || $0.id == store.patientScope }
            let open = try await store.alerts(includeClosed: false, order: .triage)
            for patient in patients {
                let scoped = store.scoped(to: patient?.id)
                let events = try await scoped.events(matching: EventQuery(from: dayStart, to: dayEnd))
                rows.append(
                    Row(
                        patient: patient,
                        events: events.map { ($0, $0.state(at: now, zone: zone)) },
                        openAlerts: open.filter { patient == nil || $0.patientID == patient?.id }
                    )
                )
            }
        } catch {
            throw StoreExit.fail(error)
        }
        if json {
            print(JSONValue.array(rows.map { Self.json($0, zone: zone) }).serialized(pretty: Output.isTerminal))
            return
        }
        let painted = color.enabled()
        let shown = TimeArguments.short(dayStart, zone: zone).prefix(10)
        print("\(shown), seen at \(TimeArguments.short(now, zone: zone)) (\(zone.identifier))")
        for row in rows {
            print("")
            print(Self.heading(row))
            guard !row.events.isEmpty else {
                print("  no events that day")
                continue
            }
            var table = Table(["STATE", "WHEN", "TASK", "TITLE"])
            for (event, state) in row.events {
                let (start, end) = Events.window(event, zone: zone)
                let when = event.isAllDay ? "all day" : "\(start.suffix(5))–\(end.suffix(5))"
                table.append(
                    [state.rawValue, when, event.taskName, event.title],
                    colors: painted ? [TerminalColor.state(state)] : []
                )
            }
            print(
                table.render().split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }
                    .joined(separator: "\n")
            )
        }
    }

    /// `Jürgen Weiß (bed-2): 1 done, 2 due, 1 late, 0 missed; 1 open alert (critical)`.
    static func heading(_ row: Row) -> String {
        let who = row.patient.map { "\($0.name) (\($0.id))" } ?? "All tasks"
        var counts = ["\(row.count(.done)) done", "\(row.count(.due)) due", "\(row.count(.late)) late"]
        counts.append("\(row.count(.missed)) missed")
        if row.count(.notDone) > 0 { counts.append("\(row.count(.notDone)) not done") }
        let alerts =
            row.openAlerts.isEmpty
            ? "no open alerts"
            : "\(row.openAlerts.count) open alert\(row.openAlerts.count == 1 ? "" : "s") "
                + "(\(row.openAlerts.map(\.trip.severity).max()!.rawValue))"
        return "\(who): \(counts.joined(separator: ", ")); \(alerts)"
    }

    static func json(_ row: Row, zone: TimeZone) -> JSONValue {
        .object([
            "patient": row.patient.map { .string($0.id) } ?? .null,
            "name": row.patient.map { .string($0.name) } ?? .null,
            "counts": .object([
                "done": .int(row.count(.done)), "notDone": .int(row.count(.notDone)), "due": .int(row.count(.due)),
                "late": .int(row.count(.late)), "missed": .int(row.count(.missed)),
            ]),
            "openAlerts": .int(row.openAlerts.count),
            "worstAlert": row.openAlerts.map(\.trip.severity).max().map { .string($0.rawValue) } ?? .null,
            "events": .array(
                row.events.map { event, state in
                    .object([
                        "task": .string(event.taskName), "title": .string(event.title),
                        "occurrence": .int(event.occurrence),
                        "start": .string(Timestamp.format(event.start, in: zone)),
                        "end": .string(Timestamp.format(event.end, in: zone)),
                        "state": .string(state.rawValue),
                    ])
                }
            ),
        ])
    }
}
