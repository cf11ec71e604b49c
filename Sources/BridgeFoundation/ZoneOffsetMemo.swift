public import Foundation
import Synchronization

/// The UTC offsets of one time zone, remembered as stretches of constant offset, and wall-clock times resolved
/// with them: the one memo behind device timestamps, schedules and exports (asking ICU for every instant cost
/// more than decoding the payload).
///
/// A stretch runs from an instant asked about to the zone's next transition (at most a year, so a zone whose
/// standard offset changes without a DST transition is re-checked yearly). A memo of immutable zone data: it
/// never changes an answer, only how fast it comes.
public struct ZoneOffsetMemo: Sendable {
    private struct Segment: Sendable {
        /// Seconds since 1970 (UTC), `start ..< end`.
        var start: Int64
        var end: Int64
        var offset: Int64
    }

    public let zone: TimeZone
    /// `zone.identifier`, kept: the shared memos are looked up by it for every sample.
    let identifier: String
    /// Sorted by `start`, not overlapping.
    private var segments: [Segment] = []
    private var lastHit = 0
    /// More stretches than this (decades of history in one run) start the memo afresh.
    private static let capacity = 256

    public init(zone: TimeZone) {
        self.zone = zone
        self.identifier = zone.identifier
    }

    /// `zone.secondsFromGMT(for:)` at `utc` seconds since 1970.
    public mutating func offset(at utc: Int64) -> Int64 {
        if lastHit < segments.count, segments[lastHit].start <= utc, utc < segments[lastHit].end {
            return segments[lastHit].offset
        }
        // The last stretch starting at or before `utc`.
        var low = 0
        var high = segments.count
        while low < high {
            let mid = (low + high) / 2
            if segments[mid].start <= utc { low = mid + 1 } else { high = mid }
        }
        if low > 0, utc < segments[low - 1].end {
            lastHit = low - 1
            return segments[low - 1].offset
        }
        if segments.count >= Self.capacity {
            segments.removeAll(keepingCapacity: true)
            low = 0
        }
        let instant = Date(timeIntervalSince1970: Double(utc))
        let offset = Int64(zone.secondsFromGMT(for: instant))
        var end =
            zone.nextDaylightSavingTimeTransition(after: instant).map { Int64($0.timeIntervalSince1970.rounded(.down)) }
            ?? Int64.max
        if low < segments.count { end = min(end, segments[low].start) }
        end = min(end, utc &+ 366 * 86_400)
        segments.insert(Segment(start: utc, end: max(end, utc + 1), offset: offset), at: low)
        lastHit = low
        return offset
    }

    /// The offset at an instant given as seconds since 1970 (the fraction does not matter: zones change on whole
    /// seconds).
    public mutating func offset(at seconds: Double) -> Int64 {
        offset(at: seconds.isNaN ? 0 : Int64(seconds.rounded(.down).clamped(to: -1e17...1e17)))
    }

    /// The instant (seconds since 1970, UTC) of the wall-clock time `local` (seconds since 1970-01-01T00:00 on the
    /// zone's local timeline).
    ///
    /// A time in a DST gap is moved forward by the gap; a time in a repeated hour resolves to the earlier instant.
    /// Assumes at most one offset change within a day either side, which holds for every zone in the IANA
    /// database.
    public mutating func instant(ofLocal local: Int64) -> Int64 {
        let before = offset(at: local - 86_400)
        let after = offset(at: local + 86_400)
        if before == after {
            let candidate = local - before
            if offset(at: candidate) == before { return candidate }
        }
        let early = local - before
        let late = local - after
        let earlyValid = offset(at: early) == before
        let lateValid = offset(at: late) == after
        switch (earlyValid, lateValid) {
        case (true, true): return min(early, late)
        case (true, false): return early
        case (false, true): return late
        case (false, false): return early  // in a gap: the pre-transition offset moves the time forward
        }
    }
}

extension ZoneOffsetMemo {
    /// One memo per zone shared by every thread of the process (device timestamps are resolved wherever samples
    /// are made); a few zones at most are ever in use.
    public static let shared = SharedZoneOffsets()
}

/// ``ZoneOffsetMemo``s of the zones in use, behind one lock.
public final class SharedZoneOffsets: Sendable {
    private let memos = Mutex<[ZoneOffsetMemo]>([])
    private static let capacity = 8

    /// ``ZoneOffsetMemo/instant(ofLocal:)`` in `zone`.
    public func instant(ofLocal local: Int64, in zone: TimeZone) -> Int64 {
        withMemo(for: zone) { $0.instant(ofLocal: local) }
    }

    /// ``ZoneOffsetMemo/offset(at:)-(Int64)`` in `zone`.
    public func offset(at utc: Int64, in zone: TimeZone) -> Int64 {
        withMemo(for: zone) { $0.offset(at: utc) }
    }

    private func withMemo(for zone: TimeZone, _ body: (inout ZoneOffsetMemo) -> Int64) -> Int64 {
        let identifier = zone.identifier
        return memos.withLock { memos in
            if let index = memos.firstIndex(where: { $0.identifier == identifier }) {
                return body(&memos[index])
            }
            if memos.count >= Self.capacity { memos.removeFirst() }
            var memo = ZoneOffsetMemo(zone: zone)
            let result = body(&memo)
            memos.append(memo)
            return result
        }
    }
}

extension Double {
    fileprivate func clamped(to range: ClosedRange<Double>) -> Double {
        Swift.min(Swift.max(self, range.lowerBound), range.upperBound)
    }
}
