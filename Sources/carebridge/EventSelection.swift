import ArgumentParser
import CareStore
import Foundation

/// The arguments `complete` and `uncomplete` share: TASK [--at TIME] [--occurrence N].
struct EventSelection: ParsableArguments {
    @Argument(help: "The task id in the patient's plan, e.g. medication (with several patients, give --patient).")
    var task: String

    @Option(name: .long, help: "When it was done, and which event (the one containing this time). Default now.")
    var at: String?

    @Option(name: .long, help: "The occurrence index in the task version in force at --at (see `events`).")
    var occurrence: Int?

    func validate() throws {
        if let occurrence { try NumericOption.check(occurrence, "--occurrence", in: 0...Int(Int32.max)) }
    }

    /// Prints the event as `medication #9 (2026-11-10 08:00–09:00)`.
    static func describe(_ event: CareEvent, zone: TimeZone) -> String {
        let start = TimeArguments.short(event.start, zone: zone)
        let window =
            event.isAllDay
            ? String(start.prefix(10)) + " all day" : start + "–" + TimeArguments.short(event.end, zone: zone).suffix(5)
        return "\(event.taskName) #\(event.occurrence) (\(window))"
    }
}
