import BridgeFoundation
import Foundation

/// The events of one schedule element in one zone, indexed by `n` (the element-local occurrence), with
/// closed-form counting so that a query never walks the element's history.
///
/// Element starts live on the zone-less local timeline (``WallClockTime/localSeconds``) and are resolved to
/// instants by ``ZoneResolver``. Three shapes:
/// - `wall`: `L(n) = start + (n / P)·period + offsets[n % P]` — days/weeks (keep wall-clock time across DST),
///   mixed days+hours, and the weekly-occurrences form (P events per week at day offsets).
/// - `absolute`: `T(n) = T0 + n·step` — hours/minutes.
/// - `months`: iterative calendar addition from the previous start (Jan 31 → Feb 28 → Mar 28), memoised.
final class ElementGenerator {
    enum Shape {
        case wall(start: Int64, period: Int64, offsets: [Int64])
        case absolute(start: Double, step: Double)
        case months(start: WallClockTime, months: Int, days: Int64, seconds: Int64)
    }

    let elementIndex: Int
    let isAllDay: Bool
    let duration: Double
    let shape: Shape
    let resolver: ZoneResolver
    /// Number of events that exist (their generated start is before the element end); `Int.max` if open.
    private(set) var cap = Int.max
    /// Memoised local starts of a `months` element, in order.
    private var monthLocals: [Int64] = []
    private var monthCursor: WallClockTime?

    init(element: ScheduleElement, index: Int, resolver: ZoneResolver) {
        self.elementIndex = index
        self.resolver = resolver
        self.isAllDay = element.duration == .allDay || element.weeklyOccurrences != nil
        if case .seconds(let seconds) = element.duration, seconds.isFinite, seconds > 0 {
            duration = seconds
        } else {
            duration = 0
        }
        let start = isAllDay ? element.start.startOfDay : element.start
        let interval = element.interval
        var single = false
        if let counts = element.weeklyOccurrences, counts.count == 7 {
            let firstWeekday = Int(start.dayNumber + 4).floorMod(7)  // 0 = Sunday
            var offsets: [Int64] = []
            for offset in 0..<7 {
                let count = max(0, counts[(firstWeekday + offset) % 7])
                offsets += repeatElement(Int64(offset) * 86_400, count: count)
            }
            if offsets.isEmpty {
                offsets = [0]
                cap = 0
            }
            shape = .wall(start: start.localSeconds, period: 7 * 86_400, offsets: offsets)
        } else if interval.validationProblem != nil || element.weeklyOccurrences != nil {
            // Not a usable interval: only occurrence 0 exists (validation reports the problem).
            shape = .wall(start: start.localSeconds, period: 86_400, offsets: [0])
            single = true
        } else if interval.months > 0 {
            shape = .months(
                start: start,
                months: interval.months,
                days: interval.calendarDays,
                seconds: interval.clockSeconds
            )
        } else if interval.calendarDays > 0 || isAllDay {
            let period = interval.calendarDays * 86_400 + (isAllDay ? 0 : interval.clockSeconds)
            shape = .wall(start: start.localSeconds, period: max(period, 86_400), offsets: [0])
        } else {
            shape = .absolute(
                start: resolver.instant(ofLocal: start.localSeconds),
                step: Double(interval.clockSeconds)
            )
        }
        if let end = element.end {
            cap = min(cap, countGenerated(before: resolver.instant(ofLocal: end.localSeconds), inclusive: false))
        }
        if single { cap = min(cap, 1) }
    }

    // MARK: - Points and windows

    /// Local-timeline start of event `n` (wall and months shapes).
    private func local(_ n: Int) -> Int64 {
        switch shape {
        case .wall(let start, let period, let offsets):
            let count = offsets.count
            return start + Int64(n / count) * period + offsets[n % count]
        case .months:
            fillMonths(through: n)
            return n < monthLocals.count ? monthLocals[n] : 400_000_000_000  // past year 9999

        case .absolute(let start, let step):
            return Int64(resolver.local(of: start + Double(n) * step).rounded(.down))
        }
    }

    /// The instant event `n` is generated at (before all-day widening).
    func generated(_ n: Int) -> Double {
        if case .absolute(let start, let step) = shape { return start + Double(n) * step }
        return resolver.instant(ofLocal: local(n))
    }

    /// Local day number of event `n`.
    private func day(_ n: Int) -> Int64 {
        if case .absolute = shape { return resolver.dayNumber(of: generated(n)) }
        return local(n).floorDiv(86_400)
    }

    /// Window of event `n`: `[start, end]` with `end` inclusive.
    func window(_ n: Int) -> (start: Double, end: Double) {
        if isAllDay {
            var day = day(n)
            let start = resolver.startOfDay(day)
            var next = resolver.startOfDay(day + 1)
            // A calendar day the zone skipped entirely (Samoa, 2011-12-30) resolves to the next day's midnight:
            // the event then spans that next day.
            while next <= start {
                day += 1
                next = resolver.startOfDay(day + 1)
            }
            return (start, next - 1)
        }
        let start = generated(n)
        return (start, start + duration)
    }

    // MARK: - Counting

    /// Events whose window starts before `t` (or at `t` when `inclusive`), limited to existing events.
    func countWindows(before t: Double, inclusive: Bool) -> Int {
        if isAllDay {
            let day = resolver.dayNumber(of: t)
            let midnight = resolver.startOfDay(day)
            let bound: Int64 = inclusive ? (midnight <= t ? day + 1 : day) : (midnight >= t ? day : day + 1)
            return min(cap, countDays(before: bound))
        }
        return min(cap, countGenerated(before: t, inclusive: inclusive))
    }

    /// A lower bound for the first `n` whose window end is at or after `t` (exact for timed events; all-day
    /// events start one local day early, so callers filter by the window end).
    func firstEnding(atOrAfter t: Double) -> Int {
        if isAllDay {
            // end(n) ≥ t ⇔ startOfDay(day(n) + 1) ≥ t + 1 ⇔ day(n) + 1 ≥ ceilDay(t + 1); one day of slack
            // covers a day the zone skipped, whose event spans the following day.
            let probe = t + 1
            let day = resolver.dayNumber(of: probe)
            let ceilDay = resolver.startOfDay(day) >= probe ? day : day + 1
            return countDays(before: ceilDay - 2)
        }
        // start(n) + d ≥ t ⇔ start(n) ≥ t − d
        return countGenerated(before: t - duration, inclusive: false)
    }

    /// Events (uncapped) whose local day is before `day`.
    private func countDays(before day: Int64) -> Int {
        switch shape {
        case .wall:
            return countWall(before: day * 86_400)
        case .absolute:
            return countGenerated(before: resolver.startOfDay(day), inclusive: false)
        case .months:
            return countMonths(beforeLocal: day * 86_400)
        }
    }

    /// Events (uncapped) whose local start `L(n) < x`, wall shape only.
    private func countWall(before x: Int64) -> Int {
        guard case .wall(let start, let period, let offsets) = shape else { return 0 }
        let relative = x - start
        if relative <= 0 { return 0 }
        let blocks = relative.floorDiv(period)
        let rest = relative - blocks * period
        var within = 0
        while within < offsets.count, offsets[within] < rest { within += 1 }
        let (product, overflow) = Int(blocks).multipliedReportingOverflow(by: offsets.count)
        return overflow ? Int.max : product + within
    }

    /// Events (uncapped) whose generated instant is before `t` (or at `t` when `inclusive`).
    func countGenerated(before t: Double, inclusive: Bool) -> Int {
        func isBefore(_ n: Int) -> Bool {
            let instant = generated(n)
            return inclusive ? instant <= t : instant < t
        }
        var n: Int
        switch shape {
        case .absolute(let start, let step):
            let steps = (t - start) / step
            if steps < 0 { return 0 }
            if steps > 4e18 { return Int.max }
            n = Int(steps.rounded(.up))
        case .wall:
            let local = resolver.local(of: t)
            if local > 9e15 { return Int.max }
            n = countWall(before: Int64(local.rounded(.up)))
        case .months:
            let local = resolver.local(of: t)
            n = countMonths(beforeLocal: Int64(local.rounded(.up)))
        }
        // The estimate is off by at most a few events near offset changes; settle it exactly.
        while n > 0, !isBefore(n - 1) { n -= 1 }
        while isBefore(n) { n += 1 }
        return n
    }

    // MARK: - Months

    private func fillMonths(through n: Int) {
        guard case .months(let start, let months, let days, let seconds) = shape else { return }
        if monthLocals.isEmpty {
            monthLocals.append(start.localSeconds)
            monthCursor = start
        }
        while monthLocals.count <= n, var cursor = monthCursor {
            // Calendar addition from the previous start: months first (day clamped), then days, then time.
            var month = cursor.month - 1 + months
            cursor.year += month / 12
            month %= 12
            cursor.month = month + 1
            cursor.day = min(cursor.day, CivilDate.daysInMonth(year: cursor.year, month: cursor.month))
            let next = cursor.localSeconds + days * 86_400 + seconds
            cursor = WallClockTime(localSeconds: next)
            monthCursor = cursor.year > 9999 ? nil : cursor
            monthLocals.append(next)
        }
    }

    /// Events (uncapped) whose local start is before `x`; extends the memo as far as needed.
    private func countMonths(beforeLocal x: Int64) -> Int {
        if monthLocals.isEmpty { fillMonths(through: 0) }
        while let last = monthLocals.last, last < x, monthCursor != nil {
            fillMonths(through: monthLocals.count + 11)
        }
        var low = 0
        var high = monthLocals.count
        while low < high {
            let mid = (low + high) / 2
            if monthLocals[mid] < x { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
