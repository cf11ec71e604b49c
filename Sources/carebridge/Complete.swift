import ArgumentParser
import CareStore
import Foundation

struct Complete: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Mark an intervention's event as done.",
        discussion: """
            Picks the event containing --at (default now), or the one given by --occurrence. Tasks linked to \
            samples are completed by readings (`carebridge ingest`), not by hand. Completing a completed event \
            changes nothing.

            Examples:
              carebridge complete medication
              carebridge complete medication --at 2026-11-20T08:15
              carebridge complete medication --occurrence 19

            \(StoreExit.help)
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions
    @OptionGroup var selection: EventSelection

    func run() throws {
        let zone = try global.resolvedTimeZone()
        let at = try selection.at.map { try TimeArguments.parse($0, option: "--at", zone: zone) } ?? Date()
        let store = try storeOptions.open(zone: zone)
        do {
            let event = try store.complete(taskID: selection.task, occurrence: selection.occurrence, at: at)
            print("completed \(EventSelection.describe(event, zone: zone))")
        } catch {
            throw StoreExit.fail(error)
        }
    }
}
