public import Foundation

/// Event generation (care-store-semantics §4): occurrence 0 at each element's start, windows per
/// ``EventDuration``, elements merged by window start with ties broken by element index, occurrences
/// numbered globally from the schedule's start. Every query costs the same however long ago the schedule
/// started (closed-form counting; month intervals walk at most one step per month).
extension Schedule {
    /// Events overlapping `[from, to)`: window start before `to` and window end at or after `from`
    /// (an event ending exactly at `from` is included). Sorted by start, then element index, then occurrence.
    ///
    /// The window must be finite: an open-ended schedule has events until year 9999.
    public func events(from: Date, to: Date, bridgeZone: TimeZone) -> [ScheduledEvent] {
        ScheduleEvaluator(self, bridgeZone: bridgeZone).events(from: from, to: to)
    }

    /// The event with this occurrence index, or nil when the schedule has fewer events.
    public func event(occurrence: Int, bridgeZone: TimeZone) -> ScheduledEvent? {
        ScheduleEvaluator(self, bridgeZone: bridgeZone).event(occurrence: occurrence)
    }

    /// Events whose window contains `instant` (see ``ScheduledEvent/contains(_:)``): the events a sample
    /// taken at `instant` completes.
    public func events(containing instant: Date, bridgeZone: TimeZone) -> [ScheduledEvent] {
        ScheduleEvaluator(self, bridgeZone: bridgeZone).events(containing: instant)
    }

    /// Number of events whose window starts before `before`; equals the occurrence index of the first
    /// event starting at or after it.
    public func occurrenceCount(before: Date, bridgeZone: TimeZone) -> Int {
        ScheduleEvaluator(self, bridgeZone: bridgeZone).occurrenceCount(before: before)
    }
}
