public import Foundation

/// One computed event of a schedule. Events are never stored: they are recomputed from the schedule, and
/// `occurrence` is the stable join key to outcomes.
public struct ScheduledEvent: Sendable, Hashable, CustomStringConvertible {
    /// Global index among the schedule's events since its start (all elements merged by start time,
    /// simultaneous events ordered by element index).
    public var occurrence: Int
    /// Which element of the schedule produced the event.
    public var elementIndex: Int
    /// Window start (for all-day events, the local midnight).
    public var start: Date
    /// Window end, inclusive (for all-day events, 23:59:59 local: one second before the next midnight).
    public var end: Date
    public var isAllDay: Bool

    public init(occurrence: Int, elementIndex: Int, start: Date, end: Date, isAllDay: Bool) {
        self.occurrence = occurrence
        self.elementIndex = elementIndex
        self.start = start
        self.end = end
        self.isAllDay = isAllDay
    }

    /// Whether a sample taken at `instant` belongs to this event: all-day `start ≤ t < next local midnight`;
    /// timed with a duration `start ≤ t < end`; an instant event only `t == start`.
    public func contains(_ instant: Date) -> Bool {
        if isAllDay { return start <= instant && instant < end.addingTimeInterval(1) }
        if end > start { return start <= instant && instant < end }
        return instant == start
    }

    public var description: String {
        let utc = TimeZone(secondsFromGMT: 0)!
        return "#\(occurrence) (element \(elementIndex)) \(WallClockTime(start, in: utc))Z…\(WallClockTime(end, in: utc))Z"
            + (isAllDay ? " all-day" : "")
    }
}
