import ArgumentParser
import BridgeFoundation
import CareStore
import Foundation

struct SamplesAssign: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assign",
        abstract: "File a reading from the unassigned inbox under a patient.",
        discussion: """
            The reading keeps every field, its device time and its original measurement time; the other values \
            of the same measurement (a weigh-in's fat, water and BMI) go with it. The events of the patient's \
            plans that it falls in complete from it. `carebridge samples --unassigned` lists the inbox.

            To file a device's future readings, register it: `carebridge devices assign DEVICE [--slot N] PATIENT`.

            Examples:
              carebridge samples assign 0193f0c2-5b1e-7a11-8c3d-2f6e4a9b1c0d alice

            JSON (--json): {"patient", "samples": [ids], "eventsUpdated"}.

            \(StoreExit.help)
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Argument(help: "The sample id (see `carebridge samples --unassigned`).")
    var id: String

    @Argument(help: "The patient id (see `carebridge patients`).")
    var patientID: String

    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let sampleID = try SamplesList.id(id)
        let store = try await storeOptions.open(zone: zone, patients: .any)
        let result: InboxAssignment = try await StoreExit.attempt {
            try await store.assignSample(id: sampleID, to: patientID)
        }
        if json {
            print(
                JSONValue.object([
                    "patient": .string(patientID),
                    "samples": .array(result.samples.map { .string($0.uuidString.lowercased()) }),
                    "eventsUpdated": .int(result.eventsUpdated),
                ]).serialized()
            )
            return
        }
        print(
            "filed \(result.samples.count) reading(s) under \(patientID); completed or updated "
                + "\(result.eventsUpdated) event(s)"
        )
    }
}
