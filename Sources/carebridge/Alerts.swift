import ArgumentParser
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
            their plans, tripped by their readings) are evaluated, listed and may be acknowledged.

            Examples:
              carebridge alerts                 # open alerts
              carebridge alerts --all --json    # every alert, for scripts
              carebridge alerts ack 3 --by "Nurse Kim"

            JSON (--json): an array of {"id", "task", "rule", "ruleVersion", "taskVersion", "severity", "state" \
            (open, acknowledged, withdrawn), "message", "value", "unit", "occurredAt", "day", "subject", "events", \
            "samples", "raisedAt", "acknowledgedAt", "acknowledgedBy", "withdrawnAt", "withdrawnReason"}.

            \(StoreExit.help)
            """,
        subcommands: [AlertsList.self, AlertsAck.self, AlertsDeliver.self],
        defaultSubcommand: AlertsList.self
    )
}

struct AlertsList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List alerts (the default).")

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Also acknowledged and withdrawn alerts.")
    var all = false

    @Option(name: .long, help: "Re-evaluate the rules over this many days before listing (0: do not; at most 36500).")
    var days = 7

    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    func validate() throws {
        try NumericOption.check(days, "--days", in: 0...NumericOption.hundredYearsOfDays)
    }

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let store = try storeOptions.open(zone: zone, patients: .any)
        let now = Date()
        let alerts: [Alert]
        do {
            if days > 0 {
                try await AlertEngine.evaluate(
                    store: store,
                    from: now.addingTimeInterval(-Double(days) * 86_400),
                    now: now
                )
            }
            alerts = try await store.alerts(includeClosed: all)
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
        var table = Table(["ID", "WHEN", "SEVERITY", "TASK/RULE", "STATE", "MESSAGE"])
        for alert in alerts {
            table.append([
                String(alert.id), TimeArguments.short(alert.trip.occurredAt, zone: zone),
                alert.trip.severity.rawValue,
                "\(alert.trip.taskID)/\(alert.trip.ruleID) v\(alert.trip.taskVersionNumber)",
                alert.state, alert.trip.message,
            ])
        }
        print(table.render())
    }
}

struct AlertsAck: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ack",
        abstract: "Acknowledge an alert (someone has seen it and taken care of it)."
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Argument(help: "The alert's id (see `carebridge alerts`).")
    var id: Int64

    @Option(name: .long, help: "Who acknowledges it.")
    var by: String?

    func run() throws {
        let zone = try global.resolvedTimeZone()
        let store = try storeOptions.open(zone: zone, patients: .any)
        do {
            let alert = try store.acknowledgeAlert(id: id, by: by)
            let who = alert.acknowledgedBy.map { " by \($0)" } ?? ""
            let when = alert.acknowledgedAt.map { TimeArguments.short($0, zone: zone) } ?? ""
            print("acknowledged alert \(alert.id)\(who) at \(when): \(alert.trip.message)")
        } catch {
            throw StoreExit.fail(error)
        }
    }
}

/// Re-evaluates the rules after a command recorded data and tells what it raised or withdrew.
enum AlertReport {
    static func evaluate(_ store: CareStore, from: Date, quiet: Bool = false) async {
        do {
            let result = try await AlertEngine.evaluate(store: store, from: from)
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
