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
        EventState(notDone: outcome?.notDoneReason != nil, completed: isCompleted, end: end, at: now, zone: zone)
    }
}

extension EventState {
    /// The state of an event marked not done or not, completed or not, whose window ends at `end`, at `now` (the
    /// day is `now`'s calendar day in `zone`): the one rule a bridge's day view and either engine's record use.
    public init(notDone: Bool, completed: Bool, end: Date, at now: Date, zone: TimeZone) {
        if notDone {
            self = .notDone
        } else if completed {
            self = .done
        } else if now <= end {
            self = .due
        } else {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            self = calendar.isDate(end, inSameDayAs: now) ? .late : .missed
        }
    }
}
