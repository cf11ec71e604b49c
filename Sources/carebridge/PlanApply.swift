import ArgumentParser
import BridgeFoundation
import CarePlan
import CareStore
import Foundation

struct PlanApply: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply",
        abstract: "Create or version the tasks of a care plan file (JSON).",
        discussion: """
            A task that is new is added; a task whose content changed gets a new version effective from its \
            effectiveDate (default: its schedule's start); an unchanged task is left alone; tasks missing from \
            the file are not touched. The whole file is checked first and applied in one transaction: if \
            anything is wrong (the error names the file, the JSON path and the problem), nothing is applied. A \
            new version may not take effect at or before an event that already has an outcome: give it an \
            effectiveDate after that event.

            Examples:
              carebridge plan apply plan.json

            \(StoreExit.help)
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Print the result as JSON.")
    var json = false

    @Argument(help: "The plan file.", completion: .file())
    var file: String

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let plan = try PlanFile.load(file, zone: zone, consequence: "nothing applied")
        // A file naming its patient needs no --patient; one that does not goes to --patient or the only patient.
        let store = try await storeOptions.open(zone: zone, patients: plan.patient == nil ? .one : .any)
        let report: PlanApplyReport = try await StoreExit.attempt { try await store.applyPlan(plan) }
        if json {
            var object: JSONObject = [
                "added": .array(report.added.map(JSONValue.string)),
                "updated": .array(report.updated.map(JSONValue.string)),
                "unchanged": .array(report.unchanged.map(JSONValue.string)),
                "eventsUpdated": .int(report.eventsUpdated),
            ]
            if let retention = plan.retention { object["retention"] = retention.json }
            print(JSONValue.object(object).serialized(pretty: Output.isTerminal))
            return
        }
        var table = Table(["TASK", "RESULT"])
        for id in report.added { table.append([id, "added"]) }
        for id in report.updated { table.append([id, "new version"]) }
        for id in report.unchanged { table.append([id, "unchanged"]) }
        print(table.render())
        if report.eventsUpdated > 0 {
            print("\(report.eventsUpdated) event(s) completed from samples already in the store")
        }
        if let retention = plan.retention {
            let rules = retention.rules.map { "\($0.type) raw \($0.keepRawDays) d, then \($0.aggregateMinutes) min" }
            print(
                rules.isEmpty
                    ? "retention policy cleared: every sample is kept"
                    : "retention policy stored (applied by `carebridge store vacuum`): " + rules.joined(separator: "; ")
            )
        }
    }
}
