import ArgumentParser
import BridgeCore
import CarePlan
import CareStore
import Foundation

struct PlanShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print the current plan (the newest version of every task).",
        discussion: """
            Without --json: one block per task with its schedule. With --json: a plan file that `plan apply` \
            accepts (applying it again changes nothing).

            Examples:
              carebridge plan show
              carebridge plan show --json > current-plan.json

            \(StoreExit.help)
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Print the plan as a JSON plan file.")
    var json = false

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let store = try await storeOptions.open(zone: zone, mode: .existing)
        let tasks: [StoredTask] = try await StoreExit.attempt { try await store.tasks() }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            struct Document: Encodable { var tasks: [CareTask] }
            let data = try encoder.encode(Document(tasks: tasks.map(\.planTask)))
            print(String(decoding: data, as: UTF8.self))
            return
        }
        if tasks.isEmpty {
            print("no tasks (apply a plan with `carebridge plan apply FILE`)")
            return
        }
        for (index, stored) in tasks.enumerated() {
            let task = stored.planTask
            if index > 0 { print("") }
            print("\(task.id): \(task.title) (\(task.kind.rawValue), version \(stored.versionNumber))")
            if let instructions = task.instructions { print("  instructions: \(instructions)") }
            print("  effective:    \(TimeArguments.short(stored.effectiveDate, zone: zone))")
            print("  time zone:    \(task.schedule.timeZonePolicy)")
            for element in task.schedule.elements {
                print("  schedule:     \(TaskDescription.element(element))")
            }
            if let linkage = task.linkage {
                print("  linkage:      \(linkage.type.rawValue) in \(linkage.unit), \(linkage.aggregation.rawValue)")
            }
            if let answer = task.answer { print("  answer:       \(CareStore.describe(answer))") }
            for rule in task.alerts {
                print("  alert:        \(rule.id) (\(rule.severity.rawValue)): \(rule.condition.summary)")
            }
            if !task.impactsAdherence { print("  adherence:    not counted") }
        }
    }
}
