import Foundation

/// Converts between instants and the zone-less local timeline of one zone, with the DST rules of
/// ``WallClockTime/date(in:)``: a local time in a gap moves forward by the gap, a repeated local time takes
/// the earlier instant.
///
/// Offsets are cached as constant-offset segments found through `nextDaylightSavingTimeTransition(after:)`,
/// so generating a year of events asks Foundation a handful of times instead of once per event.
final class ZoneResolver {
    let zone: TimeZone
    /// Known constant-offset stretches `[from, to)` in absolute seconds, sorted by `from`, not overlapping.
    private var segments: [(from: Double, to: Double, offset: Int64)] = []
    private var lastHit = 0

    init(_ zone: TimeZone) {
        self.zone = zone
    }

    /// UTC offset in seconds at the absolute instant `seconds` (since 1970).
    func offset(at seconds: Double) -> Int64 {
        if lastHit < segments.count, segments[lastHit].from <= seconds, seconds < segments[lastHit].to {
            return segments[lastHit].offset
        }
        // Binary search for the last segment starting at or before `seconds`.
        var low = 0
        var high = segments.count
        while low < high {
            let mid = (low + high) / 2
            if segments[mid].from <= seconds { low = mid + 1 } else { high = mid }
        }
        if low > 0, seconds < segments[low - 1].to {
            lastHit = low - 1
            return segments[low - 1].offset
        }
        let date = Date(timeIntervalSince1970: seconds)
        let offset = Int64(zone.secondsFromGMT(for: date))
        var to = zone.nextDaylightSavingTimeTransition(after: date)?.timeIntervalSince1970 ?? .infinity
        if low < segments.count { to = min(to, segments[low].from) }
        // A segment never extends past ~1 year, so zones whose standard offset changes without a DST
        // transition are re-checked at least yearly.
        to = min(to, seconds + 366 * 86_400)
        segments.insert((from: seconds, to: to, offset: offset), at: low)
        lastHit = low
        return offset
    }

    /// The local-timeline seconds an instant shows in this zone.
    func local(of seconds: Double) -> Double { seconds + Double(offset(at: seconds)) }

    /// The instant (seconds since 1970) of the local-timeline time `local`.
    func instant(ofLocal local: Int64) -> Double {
        let localSeconds = Double(local)
        let before = offset(at: localSeconds - 86_400)
        let after = offset(at: localSeconds + 86_400)
        if before == after {
            let candidate = localSeconds - Double(before)
            if offset(at: candidate) == before { return candidate }
        }
        let early = localSeconds - Double(before)
        let late = localSeconds - Double(after)
        let earlyValid = offset(at: early) == before
        let lateValid = offset(at: late) == after
        switch (earlyValid, lateValid) {
        case (true, true): return min(early, late)
        case (true, false): return early
        case (false, true): return late
        case (false, false): return early  // in a gap: the pre-transition offset moves the time forward
        }
    }

    /// The local day number (days since 1970-01-01) an instant falls on.
    func dayNumber(of seconds: Double) -> Int64 {
        Int64(local(of: seconds).rounded(.down)).floorDiv(86_400)
    }

    /// The instant the local day `day` starts.
    func startOfDay(_ day: Int64) -> Double { instant(ofLocal: day * 86_400) }
}
