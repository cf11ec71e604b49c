public import Foundation

/// Where an event stands at a moment, as a day view tells it: a dose three hours late is not the same "no" as
/// one due tonight.
public enum EventState: String, Sendable, Hashable, CaseIterable {
    /// Completed (or answered, or its readings reached the target).
    case done
    /// Marked not done, with a reason.
    case notDone = "not done"
    /// Its window is open or still ahead.
    case due
    /// Its window has ended without an outcome, but the day is not over: it can still be done (a late
    /// `complete` takes it).
    case late
    /// Its window ended on a day that is over, without an outcome.
    case missed
}

extension CareEvent {
    /// The event's state at `now`; the day is the calendar day of `now` in `zone`.
    public func state(at now: Date, zone: TimeZone) -> EventState {
        if outcome?.notDoneReason != nil { return .notDone }
        if isCompleted { return .done }
        if now <= end { return .due }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar.isDate(end, inSameDayAs: now) ? .late : .missed
    }
}
