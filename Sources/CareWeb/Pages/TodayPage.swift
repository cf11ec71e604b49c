import BridgeCore
import CarePlan
import CareStore
import Foundation
import SampleExport

/// The Care Card and the Tracker for one day: each event with what was recorded (and by whom or which device),
/// and the form that records it; future events cannot be completed, measurements come from devices, LO/HI
/// readings say so.
struct TodayPage {
    let patient: Patient
    let day: CalendarDay
    let events: [CareEvent]
    /// The day's undone outcomes, oldest first: an event without outcome says who undid it and when.
    var undos: [OutcomeUndo] = []
    let now: Date
    /// The plan's zone: the day's.
    let zone: TimeZone
    /// How the user reads the times (their zone).
    let shown: ShownTime

    var done: Int { events.filter { $0.impactsAdherence && $0.isCompleted }.count }
    var total: Int { events.filter(\.impactsAdherence).count }

    func context(error: String?) -> [String: Any] {
        let today = CalendarDay(containing: now, zone: zone)
        let next = day.adding(days: 1, zone: zone)
        var values: [String: Any] = [
            "patientName": patient.name, "patientID": patient.id, "dayLabel": day.label(zone: zone),
            "day": day.key, "prevDay": day.adding(days: -1, zone: zone).key, "today": today.key,
            "isToday": day == today, "done": done, "total": total,
            "percent": total == 0 ? 0 : Int((Double(done) / Double(total) * 100).rounded()),
            "events": events.map(event), "hasEvents": !events.isEmpty, "onToday": true,
        ]
        if next.start <= today.start { values["nextDay"] = next.key }
        if let note = shown.note(patientName: patient.name, at: day.start.addingTimeInterval(12 * 3600), oneDay: true) {
            values["zoneNote"] = note
        }
        if let error { values["error"] = error }
        return values
    }

    private func event(_ event: CareEvent) -> [String: Any] {
        let zone = event.timeZone
        var values: [String: Any] = [
            "title": event.title, "task": event.taskID, "occurrence": event.occurrence,
            "anchor": Self.anchor(task: event.taskID, occurrence: event.occurrence),
            "time": event.isAllDay
                ? "All day"
                : shown.window(start: event.start, end: event.end, planZone: zone),
        ]
        if let text = event.text { values["text"] = text }
        if let note = event.outcome?.note { values["note"] = note }
        if event.outcome == nil,
            let undo = undos.last(where: { $0.taskID == event.taskID && $0.occurrence == event.occurrence })
        {
            let who = undo.author.map { " by \($0)" } ?? " from the command line"
            values["undone"] = "Undone\(who) at \(shown.time(undo.undoneAt, reference: zone))"
        }
        let isFuture = event.start > now.addingTimeInterval(CareStore.futureTolerance)
        let isMeasurement = event.kind == .assessment && event.answer == nil
        let (state, stateClass) = describe(event, isFuture: isFuture, isMeasurement: isMeasurement)
        values["stateText"] = state
        values["stateClass"] = stateClass
        if let comparator = event.outcome?.values.first?.comparator {
            values["flag"] = "Outside the device's measuring range (\(comparator.label)): not a plain value"
        }
        guard !isFuture, !isMeasurement else { return values }
        let hasOutcome = event.outcome != nil
        if let format = event.answer {
            if event.outcome?.values.isEmpty ?? true { values["answer"] = answerForm(format) }
            if hasOutcome { values["canUndo"] = true }
        } else if hasOutcome {
            values["canUndo"] = true
        } else {
            values["canDo"] = true
        }
        return values
    }

    private func describe(_ event: CareEvent, isFuture: Bool, isMeasurement: Bool) -> (String, String) {
        let zone = event.timeZone
        guard let outcome = event.outcome else {
            if isFuture { return ("Not due yet", "future") }
            if isMeasurement {
                return event.end < now
                    ? ("No reading came", "missed") : ("Waiting for a reading from the device", "open")
            }
            return event.end < now ? ("Not done", "missed") : ("To do", "open")
        }
        let by = outcome.author.map { " by \($0)" } ?? ""
        if let reason = outcome.notDoneReason { return ("Not done: \(reason)\(by)", "notdone") }
        guard let value = outcome.values.last else { return ("Note only", "open") }
        let at = shown.time(value.measuredAt, reference: zone)
        if let format = event.answer {
            return ("Answered \(format.display(value: value.value, text: value.text)) at \(at)\(by)", "done")
        }
        if isMeasurement {
            return ("\(Self.quantity(value)) measured at \(at)", event.isCompleted ? "done" : "open")
        }
        return ("Done at \(at)\(by)", event.isCompleted ? "done" : "open")
    }

    private func answerForm(_ format: AnswerFormat) -> [String: Any] {
        switch format {
        case .scale(let min, let max, let step, let labels):
            let named = labels.keys.sorted().map { "\(AnswerFormat.format($0)) = \(labels[$0]!)" }
            let prompt =
                "Your answer, \(AnswerFormat.format(min)) to \(AnswerFormat.format(max))"
                + (named.isEmpty ? "" : " (\(named.joined(separator: ", ")))")
            return [
                "scale": [
                    "prompt": prompt, "min": AnswerFormat.format(min), "max": AnswerFormat.format(max),
                    "step": AnswerFormat.format(step),
                ]
            ]
        case .yesNo: return ["choices": ["prompt": "Your answer", "options": ["yes", "no"]]]
        case .choice(let options): return ["choices": ["prompt": "Your answer", "options": options]]
        case .text: return ["freeText": ["prompt": "Your answer"]]
        case .duration: return ["typed": ["prompt": "How long (for example 7h30m)", "inputMode": "text"]]
        case .count: return ["typed": ["prompt": "How many", "inputMode": "numeric"]]
        }
    }

    /// The element id of an event on the page (`tablet-anna-26`): the form's redirect returns to it.
    static func anchor(task: String, occurrence: Int) -> String {
        "\(task)-\(occurrence)".map { $0.isLetter || $0.isNumber ? String($0) : "-" }.joined()
    }

    /// `72.5 kg`, `< 1.1 mmol/L` for a LO reading, `LO (limit unknown) mg/dL` for one whose device gave no limit
    /// (stored as −∞, which is no number to show).
    static func quantity(_ value: OutcomeValue) -> String {
        let symbol = DisplayQuantity.symbol(value.unit)
        if let comparator = value.comparator, !value.value.isFinite {
            return "\(comparator.label) (limit unknown) \(symbol)"
        }
        let number = DisplayQuantity.number(value.value, decimals: min(DisplayQuantity.fractionDigits(value.value), 2))
        return value.comparator.map { "\($0.rawValue) \(number) \(symbol)" } ?? "\(number) \(symbol)"
    }
}
