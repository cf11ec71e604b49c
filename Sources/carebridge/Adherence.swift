import ArgumentParser
import BridgeFoundation
import CarePlan
import CareStore
import Foundation

struct Adherence: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Completed and total events per local day (tasks that count toward adherence).",
        discussion: """
            Days are calendar days of each schedule's time zone. --from defaults to six days before today, --to \
            to the end of today. JSON (--json): [{"day", "completed", "total", "progress"}], progress being the \
            mean progress of the day's events (null without events).

            Examples:
              carebridge adherence
              carebridge adherence --from 2026-11-16 --to 2026-11-22 --json

            \(StoreExit.help)
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: "First day (ISO-8601).")
    var from: String?

    @Option(name: .long, help: "Last day, inclusive when a bare date.")
    var to: String?

    @Option(name: .long, help: "Only intervention or assessment tasks.")
    var kind: String?

    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let today = TimeArguments.startOfDay(Date(), zone: zone)
        let start =
            try from.map { try TimeArguments.parse($0, option: "--from", zone: zone) }
            ?? TimeArguments.startOfDay(today.addingTimeInterval(-6 * 86_400 + 3600), zone: zone)
        let end =
            try to.map { try TimeArguments.parseEnd($0, option: "--to", zone: zone) }
            ?? TimeArguments.startOfDay(today.addingTimeInterval(36 * 3600), zone: zone)
        try TimeArguments.checkOrder(start, end, from: from, to: to)
        var kinds = Set<TaskKind>()
        if let kind {
            guard let parsed = TaskKind(rawValue: kind) else {
                throw ValidationError("--kind must be intervention or assessment, not '\(kind)'")
            }
            kinds.insert(parsed)
        }
        let store = try await storeOptions.open(zone: zone, mode: .existing)
        let days: [DailyAdherence] = try await StoreExit.attempt {
            try await store.adherence(from: start, to: end, kinds: kinds)
        }
        if json {
            let array = days.map { day -> JSONValue in
                .object([
                    "day": .string(day.day),
                    "completed": .int(day.completed),
                    "total": .int(day.total),
                    "progress": day.progress.map(JSONValue.double) ?? .null,
                ])
            }
            print(JSONValue.array(array).serialized(pretty: Output.isTerminal))
            return
        }
        var table = Table(["DAY", "COMPLETED", "TOTAL", "PROGRESS"])
        for day in days {
            table.append([
                day.day, String(day.completed), String(day.total),
                day.progress.map { "\(Int(($0 * 100).rounded()))%" } ?? "—",
            ])
        }
        print(table.render())
    }
}
