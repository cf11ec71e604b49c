import ArgumentParser
import CareStore
import Foundation
import Insights

struct Uncomplete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Undo `complete`: remove the outcome of an intervention's event.",
        discussion: """
            Selects the event as `complete` does (--at, default now, or --occurrence).

            Examples:
              carebridge uncomplete medication --at 08:30

            \(StoreExit.help)
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions
    @OptionGroup var selection: EventSelection

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let at = try selection.at.map { try TimeArguments.parse($0, option: "--at", zone: zone) } ?? Date()
        let store = try await storeOptions.open(zone: zone)
        do {
            let event = try await store.uncomplete(
                taskID: try await store.taskKey(for: selection.task),
                occurrence: selection.occurrence,
                at: at
            )
            print("not done: \(EventSelection.describe(event, zone: zone))")
            await AlertReport.evaluate(store, from: event.start)
        } catch {
            throw await UnknownName.fail(error, in: store)
        }
    }
}
