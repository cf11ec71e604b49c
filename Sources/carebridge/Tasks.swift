import ArgumentParser
import BridgeCore
import BridgeFoundation
import CarePlan
import CareStore
import Foundation

struct Tasks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the current tasks (newest version of each).",
        discussion: """
            Examples:
              carebridge tasks
              carebridge tasks --patient bed-1 --json

            \(StoreExit.help)
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let store = try await storeOptions.open(zone: zone, mode: .existing)
        let tasks: [StoredTask] = try await StoreExit.attempt { try await store.tasks() }
        if json {
            let array = tasks.map { stored -> JSONValue in
                var object: JSONObject = [
                    "id": .string(store.patientScope != nil ? stored.name : stored.id),
                    "title": .string(stored.task.title),
                    "kind": .string(stored.task.kind.rawValue),
                    "version": .string(stored.version.uuidString.lowercased()),
                    "versionNumber": .int(stored.versionNumber),
                    "effectiveDate": .string(Timestamp.format(stored.effectiveDate, in: zone)),
                    "timeZone": .string(stored.task.schedule.timeZonePolicy.description),
                    "schedule": .string(TaskDescription.schedule(stored.task.schedule)),
                ]
                if stored.name != stored.id { object["key"] = .string(stored.id) }
                if let linkage = stored.task.linkage {
                    object["linkage"] = .object([
                        "type": .string(linkage.type.rawValue), "unit": .string(linkage.unit.rawValue),
                        "aggregation": .string(linkage.aggregation.rawValue),
                    ])
                }
                return .object(object)
            }
            print(JSONValue.array(array).serialized(pretty: Output.isTerminal))
            return
        }
        if tasks.isEmpty {
            print("no tasks (apply a plan with `carebridge plan apply FILE`)")
            return
        }
        var table = Table(["ID", "KIND", "V", "EFFECTIVE", "ZONE", "LINKAGE", "TITLE"])
        for stored in tasks {
            let linkage =
                stored.task.linkage.map {
                    "\($0.type.rawValue) \($0.aggregation.rawValue) (\($0.unit.displaySymbol))"
                } ?? "—"
            table.append([
                store.patientScope != nil ? stored.name : stored.id, stored.task.kind.rawValue,
                String(stored.versionNumber),
                TimeArguments.short(stored.effectiveDate, zone: zone), stored.task.schedule.timeZonePolicy.description,
                linkage, stored.task.title,
            ])
        }
        print(table.render())
    }
}
