import ArgumentParser
import BridgeFoundation
import CareHub
import CarePlan
import Foundation

/// `carebridge hub plan apply --patient P FILE`: a plan file for every bridge of a patient.
struct HubPlanApply: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply",
        abstract: "Put a care plan file on the hub for a patient; the patient's bridges apply it at their next sync.",
        discussion: """
            The file is the one `carebridge plan apply` takes (tasks, patient, plan, contacts, retention), checked \
            here with the same parser before anything is stored (exit 65 naming the JSON path). Each bridge \
            enrolled for the patient applies it as `plan apply --patient` would, in the order plans were put on the \
            hub, and reports whether it did (`hub status`: CHANGES). A bridge enrolled later gets every plan of the \
            patient put on the hub before. The hub owns plans: a change made on a bridge is replaced by the next \
            plan from the hub.

            Examples:
              carebridge hub plan apply --database postgres://hub@db/hub \\
                --patient ann plan.json
            """
    )

    @OptionGroup var database: HubDatabaseOptions
    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("The patient whose plan it is.", valueName: "id"))
    var patient: String

    @Option(name: .long, help: ArgumentHelp("Who puts it on the hub (for the record).", valueName: "name"))
    var by: String?

    @Flag(name: .long, help: "Print the result as JSON.")
    var json = false

    @Argument(help: "The plan file.", completion: .file())
    var file: String

    func run() async throws {
        let plan = try PlanFile.load(file, zone: try global.resolvedTimeZone(), consequence: "nothing put on the hub")
        if let named = plan.patient?.id, named != patient {
            Output.error(
                "plan file \(file) is for patient '\(named)', not '\(patient)' (--patient); nothing put on the hub"
            )
            throw ExitCode(StoreExit.invalidData)
        }
        guard let data = FileManager.default.contents(atPath: file), let text = String(data: data, encoding: .utf8)
        else {
            Output.error("cannot read plan file \(file) as UTF-8 text")
            throw ExitCode(StoreExit.noInput)
        }
        let (sequence, bridges) = try await database.withStore(logger: CLILogging.logger) { store in
            try await store.publishPlan(patient: patient, file: text, by: by)
        }
        if json {
            print(
                JSONValue.object([
                    "change": .int(Int(sequence)), "patient": .string(patient),
                    "bridges": .array(bridges.map(JSONValue.string)),
                ]).serialized()
            )
        } else if bridges.isEmpty {
            print("plan \(sequence) for \(patient) is on the hub; no bridge is enrolled for \(patient) yet")
        } else {
            print("plan \(sequence) for \(patient) is on the hub for \(bridges.joined(separator: ", "))")
        }
    }
}
