import ArgumentParser
import BridgeCore
import BridgeFoundation
import CarePlan
import CareStore
import Foundation
import Insights

struct Alerts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the alerts the plan's rules raised, and acknowledge them.",
        discussion: """
            Rules live on the tasks of the plan ("alerts": thresholds with `when`, trends with `trend`, \
            adherence with `adherence`; see README). Every command that records data (complete, ingest, replay) \
            re-evaluates the rules for the days it touched; `alerts` itself re-evaluates the last --days days \
            first (adherence deadlines pass with time). An alert is raised once per rule and subject (a reading, \
            an answer, a day), stays until acknowledged, and is withdrawn when a late reading or a correction \
            removes the facts that tripped it. With --patient, only that patient's alerts (the rules of tasks in \
            their plans, tripped by their readings) are evaluated, listed and may be acknowledged; without it, in \
            a store with several patients, each alert names its patient (a PATIENT column, by name). TASK/RULE \
            names the task as the patient's plan does (`medication`, also for a second patient whose task's key \
            is `medication@bed-2`).

            Alerts are listed most severe first, then newest first. No adherence alert is raised for time before \
            the task version was applied or before the store first saw the patient (a plan whose schedule starts \
            in the past raises nothing for the past).

            Examples:
              carebridge alerts                       # open alerts
              carebridge alerts --severity critical   # open critical alerts only
              carebridge alerts --all --json          # every alert, for scripts
              carebridge alerts ack 3 --by "Nurse Kim"
              carebridge alerts ack 3 4 7 --by "Nurse Kim"
              carebridge alerts ack --all --before 2026-11-27 --by "Nurse Kim"

            JSON (--json): an array of {"id", "patient" (the patient's id, null in a store without patients), \
            "task" (the task's store-wide key, `medication@bed-2`), "taskName" (its name in the plan, \
            `medication`), "rule", "ruleVersion", "taskVersion", "severity", "state" \
            (open, acknowledged, withdrawn), "message", "value", "unit", "occurredAt", "day", "subject", "events", \
            "samples", "raisedAt", "acknowledgedAt", "acknowledgedBy", "withdrawnAt", "withdrawnReason"}.

            \(StoreExit.help)
            """,
        subcommands: [AlertsList.self, AlertsAck.self, AlertsDeliver.self],
        defaultSubcommand: AlertsList.self
    )
}

struct AlertsList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List alerts (the default).",
        discussion: """
            Examples:
              carebridge alerts list --all --days 30
              carebridge alerts list --severity critical --json
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Also acknowledged and withdrawn alerts.")
    var all = false

    @Option(name: .long, help: "Re-evaluate the rules over this many days before listing (0: do not; at most 36500).")
    var days = 7

    @Option(name: .long, help: "Only alerts of this severity or higher: info, warning or critical.")
    var severity: String?

    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    @OptionGroup var color: ColorOption

    func validate() throws {
        _ = try AlertsList.severity(severity)
        try NumericOption.check(days, "--days", in: 0...NumericOption.hundredYearsOfDays)
    }

    /// The severity `--severity` names, or nil without one.
    static func severity(_ text: String?) throws -> AlertSeverity? {
        guard let text else { return nil }
        guard let severity = AlertSeverity(rawValue: text.lowercased()) else {
            throw ValidationError(
                "--severity must be \(AlertSeverity.allCases.map(\.rawValue).joined(separator: ", ")), not '\(text)'"
            )
        }
        return severity
    }

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let minimum = try Self.severity(severity)
        let store = try await storeOptions.open(zone: zone, mode: .existing, patients: .any)
        let now = Date()
        let alerts: [Alert]
        var names: [String: String] = [:]
        do {
            // Across patients (no --patient, more than one in the store) every row names whose alert it is.
            if store.patientScope == nil {
                let patients = try await store.patients()
                if patients.count > 1 { names = Dictionary(patients.map { ($0.id, $0.name) }) { first, _ in first } }
            }
            if days > 0 {
                try await AlertRefresh.evaluate(
                    store: store,
                    path: storeOptions.path,
                    from: now.addingTimeInterval(-Double(days) * 86_400),
                    now: now
                )
            }
            alerts = try await store.alerts(
                includeClosed: all,
                severity: minimum,
                order: .triage
            )
        } catch {
            throw StoreExit.fail(error)
        }
        if json {
            print(JSONValue.array(alerts.map { $0.json(in: zone) }).serialized(pretty: Output.isTerminal))
            return
        }
        if alerts.isEmpty {
            print(all ? "no alerts" : "no open alerts")
            return
        }
        let byPatient = !names.isEmpty
        let painted = color.enabled()
        var table = Table(
            ["ID", "WHEN", "SEVERITY"] + (byPatient ? ["PATIENT"] : []) + ["TASK/RULE", "STATE", "MESSAGE"]
        )
        for alert in alerts {
            let patient = alert.patientID.map { names[$0] ?? $0 } ?? "-"
            table.append(
                [
                    String(alert.id), TimeArguments.short(alert.trip.occurredAt, zone: zone),
                    alert.trip.severity.rawValue,
                ]
                    + (byPatient ? [patient] : []) + [
                        "\(alert.taskName)/\(alert.trip.ruleID) v\(alert.trip.taskVersionNumber)",
                        alert.state, alert.trip.message,
                    ],
                colors: painted ? [nil, nil, TerminalColor.severity(alert.trip.severity)] : []
            )
        }
        print(table.render())
    }
}

struct AlertsAck: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ack",
        abstract: "Acknowledge alerts (someone has seen them and taken care of them).",
        discussion: """
            Give the alerts' ids, or --all --before DATE for every open alert whose facts happened before that \
            time (a bare date: before that day). All or nothing: an unknown id acknowledges none.

            Examples:
              carebridge alerts ack 3 --by "Nurse Kim"
              carebridge alerts ack 3 4 7 --by "Nurse Kim"
              carebridge alerts ack --all --before 2026-11-27 --by "Nurse Kim"
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Argument(help: "The alerts' ids (see `carebridge alerts`).")
    var ids: [Int64] = []

    @Flag(name: .long, help: "Every open alert before --before.")
    var all = false

    @Option(name: .long, help: "With --all: only alerts whose facts happened before this time or date.")
    var before: String?

    @Option(name: .long, help: "Who acknowledges them.")
    var by: String?

    func validate() throws {
        if all {
            guard ids.isEmpty else { throw ValidationError("give alert ids or --all --before DATE, not both") }
            guard before != nil else {
                throw ValidationError(
                    "--all needs --before DATE (e.g. --before today), so that alerts raised after you looked stay open"
                )
            }
        } else {
            guard before == nil else { throw ValidationError("--before goes with --all") }
            guard !ids.isEmpty else { throw ValidationError("give the ids of the alerts, or --all --before DATE") }
        }
    }

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let limit = try before.map { try TimeArguments.parse($0, option: "--before", zone: zone) }
        let store = try await storeOptions.open(zone: zone, patients: .any)
        let alerts: [Alert]
        do {
            if let limit {
                alerts = try await store.acknowledgeAlerts(before: limit, by: by)
            } else {
                alerts = try await store.acknowledgeAlerts(ids: ids, by: by)
            }
        } catch {
            throw StoreExit.fail(error)
        }
        for alert in alerts {
            let who = alert.acknowledgedBy.map { " by \($0)" } ?? ""
            let when = alert.acknowledgedAt.map { TimeArguments.short($0, zone: zone) } ?? ""
            print("acknowledged alert \(alert.id)\(who) at \(when): \(alert.trip.message)")
        }
        if let limit {
            let shown = TimeArguments.short(limit, zone: zone)
            print(
                alerts.isEmpty
                    ? "no open alerts before \(shown)" : "acknowledged \(alerts.count) alert(s) before \(shown)"
            )
        }
    }
}

/// Re-evaluates the rules after a command recorded data and tells what it raised or withdrew.
enum AlertReport {
    /// - Parameter types: the quantity types of the samples the command recorded (nil: it changed events).
    static func evaluate(_ store: CareStore, from: Date, types: Set<QuantityType>? = nil, quiet: Bool = false) async {
        do {
            let result = try await AlertEngine.evaluate(store: store, from: from, types: types)
            if quiet { return }
            for id in result.raised {
                guard let alert = try await store.alert(id: id) else { continue }
                print("alert \(alert.id) (\(alert.trip.severity.rawValue)): \(alert.trip.message)")
            }
            for id in result.withdrawn {
                guard let alert = try await store.alert(id: id) else { continue }
                print("alert \(alert.id) withdrawn: \(alert.trip.message)")
            }
        } catch {
            Output.error("the data was recorded, but evaluating the alert rules failed: \(error.message)")
        }
    }
}
