import ArgumentParser
import BridgeCore
import BridgeFoundation
import CarePlan
import CareStore
import Foundation
import GATTDecoding
import Insights

struct InsightsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "insights",
        abstract: "Completion, values and messages per task over a period, beside the period before.",
        discussion: """
            Default period: the last 7 days, today included (--week). With --from/--to: that interval (a bare \
            date for --to includes that day). The previous period has the same length and ends where this one \
            starts. The rules are re-evaluated for the period first, so the alerts are current.

            Per task: events completed of those scheduled (and marked not done), the values (mean, range, \
            latest) for measurements and answers, and a bar per day (completion for interventions, the day's \
            value for assessments). Messages: the period's alerts (open, acknowledged) and tips (adherence that \
            moved by 20 points or more, assessments left unanswered).

            The TASK column is the task's name in the patient's plan (`medication`, also for a second patient \
            whose task's key is `medication@bed-2`).

            JSON (--json): {"patient", "from", "to", "previousFrom", "days", "tasks": [{"id" (the task's key), \
            "name" (its name in the patient's plan), "title", "kind", "unit", "answer", "completion": \
            {"completed", "total", "notDone", "rate"}, "previousCompletion", "values": {"count", "mean", "min", \
            "max", "latest", "latestText", "latestAt"}, "previousValues", "days": [{"day", "completed", "total", \
            "value"}], "widget": {"latest", "state", "openAlerts"}}], "messages": [{"kind", "severity", "task" \
            (the key), "taskName", "text", "day", "alert", "state"}]}.

            Examples:
              carebridge insights
              carebridge insights --from 2026-11-16 --to 2026-11-22 --json

            \(StoreExit.help)
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions
    @OptionGroup var period: ReportPeriod

    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let (from, to) = try period.resolve(zone: zone)
        let store = try await storeOptions.open(zone: zone, mode: .existing)
        let report: InsightsReport
        do {
            try await AlertRefresh.evaluate(store: store, path: storeOptions.path, from: from, to: min(to, Date()))
            report = try await InsightsBuilder.build(store: store, from: from, to: to)
        } catch {
            throw StoreExit.fail(error)
        }
        if json {
            print(report.json.serialized(pretty: Output.isTerminal))
            return
        }
        print(InsightsText.render(report))
    }
}

/// The period options `insights` and `report` share.
struct ReportPeriod: ParsableArguments {
    @Flag(name: .long, help: "The last 7 days, today included (the default).")
    var week = false

    @Option(name: .long, help: "Period start (ISO-8601 date or time).")
    var from: String?

    @Option(name: .long, help: "Period end (exclusive; a bare date includes that day).")
    var to: String?

    func resolve(zone: TimeZone, now: Date = Date()) throws -> (Date, Date) {
        if week, from != nil || to != nil { throw ValidationError("--week excludes --from/--to") }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let end =
            try to.map { try TimeArguments.parseEnd($0, option: "--to", zone: zone) }
            ?? calendar.date(byAdding: .day, value: 1, to: calendar.startOfDay(for: now))!
        let start =
            try from.map { try TimeArguments.parse($0, option: "--from", zone: zone) }
            ?? calendar.date(byAdding: .day, value: -7, to: end)!
        try TimeArguments.checkOrder(start, end, from: from, to: to)
        return (start, end)
    }
}

/// The terminal view of insights.
enum InsightsText {
    static let bars = Array("▁▂▃▄▅▆▇█")

    static func render(_ report: InsightsReport) -> String {
        let zone = report.zone
        let last = report.to.addingTimeInterval(-1)
        var lines = [
            "Insights \(TimeArguments.short(report.from, zone: zone).prefix(10)) – "
                + "\(TimeArguments.short(last, zone: zone).prefix(10)) (before: "
                + "\(TimeArguments.short(report.previousFrom, zone: zone).prefix(10)) – "
                + "\(TimeArguments.short(report.from.addingTimeInterval(-1), zone: zone).prefix(10)))",
            "",
        ]
        var table = Table(["TASK", "DONE", "BEFORE", "VALUES", "DAYS"])
        for task in report.tasks {
            table.append([
                task.name + (task.openAlerts > 0 ? " !" : ""),
                completion(task.completion),
                completion(task.previousCompletion),
                values(task),
                sparkline(task),
            ])
        }
        lines.append(report.tasks.isEmpty ? "no tasks" : table.render())
        if !report.messages.isEmpty {
            lines.append("")
            lines.append("Messages:")
            for message in report.messages {
                let marker = message.kind == .alert ? (message.severity == .critical ? "!!" : "! ") : "· "
                var text = "  \(marker) \(message.severity.rawValue): \(message.text)"
                if let id = message.alertID, let state = message.state { text += " (alert \(id), \(state))" }
                lines.append(text)
            }
        }
        return lines.joined(separator: "\n")
    }

    static func completion(_ completion: TaskInsight.Completion) -> String {
        guard let rate = completion.rate else { return "—" }
        let notDone = completion.notDone > 0 ? ", \(completion.notDone) not done" : ""
        return "\(completion.completed)/\(completion.total) \(Int((rate * 100).rounded()))%\(notDone)"
    }

    static func number(_ value: Double, _ task: TaskInsight) -> String {
        if let answer = task.answer, case .duration = answer { return answer.display(value: value, text: nil) }
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int64(rounded)) : String(rounded)
    }

    static func values(_ task: TaskInsight) -> String {
        guard let values = task.values else { return task.unit == nil ? "" : "no values" }
        // As people write it (°C, mmHg), not the UCUM code the JSON keeps.
        let unit =
            task.unit.map { $0 == "1" || $0 == "s" ? "" : " " + HealthUnit(rawValue: $0).displaySymbol } ?? ""
        var text = "mean \(number(values.mean, task))\(unit) (\(number(values.min, task))–\(number(values.max, task)))"
        let latest =
            task.answer?.display(value: values.latest, text: values.latestText)
            ?? number(values.latest, task) + unit
        text += ", latest \(latest)"
        if let before = task.previousValues { text += "; before mean \(number(before.mean, task))" }
        return text
    }

    /// One bar per day: completion for interventions, the day's value (scaled to the period's range) else.
    static func sparkline(_ task: TaskInsight) -> String {
        let values = task.days.compactMap(\.value)
        let low = values.min() ?? 0
        let high = values.max() ?? 1
        return String(
            task.days.map { day -> Character in
                if task.unit != nil, let value = day.value {
                    let fraction = high > low ? (value - low) / (high - low) : 1
                    return bars[min(bars.count - 1, Int((fraction * Double(bars.count - 1)).rounded()))]
                }
                guard day.total > 0 else { return " " }
                if task.unit != nil { return "·" }
                let fraction = Double(day.completed) / Double(day.total)
                return day.completed == 0 ? "_" : bars[min(bars.count - 1, Int((fraction * 7).rounded()))]
            }
        )
    }
}
