import ArgumentParser
import CarePlan
import CareStore
import Foundation
import Insights

struct Complete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Mark an event as done, answer an assessment, add a note, or mark it not done.",
        discussion: """
            Picks the first event containing --at (default now) that is not done yet, or the one given by \
            --occurrence. Outside every window it picks the most recent event of that day that began before --at \
            and has nothing recorded yet (a dose taken late: --at 11:30 completes the 08:00–10:00 one, recorded \
            at 11:30); when there is none, the error lists the day's events. Tasks linked to samples are completed by readings (`carebridge ingest`), not by hand. \
            Completing a completed event changes nothing; answering again, or --not-done, replaces the outcome \
            (a correction). A time more than 5 minutes in the future is refused without --force.

            Assessments a person answers declare their answer in the plan ("answer": {"type": "scale", "min": 0, \
            "max": 10}, yesNo, choice, text, duration, count) and need --value/--answer: a number on the scale \
            (or one of its labels), yes/no, one of the options, any text, a duration such as 7h30m, or a count.

            Examples:
              carebridge complete medication
              carebridge complete medication --at 2026-11-20T08:15
              carebridge complete medication \\
                  --at 11:30     # late: the open morning dose
              carebridge complete pain --value 7 --note "after the walk"
              carebridge complete nausea --answer yes
              carebridge complete sleep --value 7h30m
              carebridge complete medication --not-done "felt dizzy"

            \(StoreExit.help)
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions
    @OptionGroup var selection: EventSelection

    @Option(name: [.customLong("value"), .customLong("answer")], help: "The answer (assessments with an answer).")
    var answer: String?

    @Option(name: .long, help: "A note kept with the outcome.")
    var note: String?

    @Option(name: .customLong("not-done"), help: "Mark the event not done, with the reason.")
    var notDone: String?

    @Flag(name: .long, help: "Accept a --at in the future.")
    var force = false

    func validate() throws {
        if notDone != nil, answer != nil { throw ValidationError("--not-done and --value/--answer exclude each other") }
        if let notDone, notDone.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("--not-done needs a reason")
        }
    }

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let now = Date()
        let at = try selection.at.map { try TimeArguments.parse($0, option: "--at", zone: zone) } ?? now
        let store = try await storeOptions.open(zone: zone)
        let result: CompletionResult
        do {
            result = try await store.complete(
                taskID: try await store.taskKey(for: selection.task),
                occurrence: selection.occurrence,
                at: at,
                entry: Completion(answer: answer, note: note, notDoneReason: notDone, allowFuture: force),
                now: now
            )
        } catch {
            throw await UnknownName.fail(error, in: store)
        }
        let event = result.event
        let described = EventSelection.describe(event, zone: zone)
        var line: String
        if let reason = event.outcome?.notDoneReason {
            line = "not done \(described): \(reason)"
        } else if let value = event.outcome?.values.first, let format = event.answer {
            line = "answered \(described): \(format.display(value: value.value, text: value.text))"
        } else {
            line = "completed \(described)"
        }
        if at > event.end, !event.isAllDay {
            line += " — late, at \(TimeArguments.short(at, zone: zone).suffix(5))"
        }
        if let note = event.outcome?.note, note == self.note { line += " — note: \(note)" }
        if !result.changed {
            line += " (already recorded; nothing changed)"
        } else if result.corrected {
            line += " (corrected)"
        }
        print(line)
        if result.changed { await AlertReport.evaluate(store, from: event.start) }
    }
}
