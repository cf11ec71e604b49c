import Foundation
import Synchronization

/// Remembers, per time zone, stretches of time with a constant UTC offset, so resolving device timestamps
/// does not ask ICU for every sample (that lookup cost more than decoding the payload).
///
/// A memo of immutable zone data: it never changes an answer, only how fast it comes.
final class ZoneOffsetCache: Sendable {
    private struct Segment {
        var zone: String
        /// Seconds since 1970 (UTC), `start ..< end`.
        var start: Int64
        var end: Int64
        var offset: Int64

        func covers(_ utc: Int64) -> Bool { start <= utc && utc < end }
    }

    static let shared = ZoneOffsetCache()

    private static let capacity = 16
    private let segments = Mutex<[Segment]>([])

    /// `zone.secondsFromGMT(for:)` at two instants, under one lock (resolving a wall-clock time asks for the
    /// offsets a day either side, and both almost always fall in one remembered stretch).
    func offsets(at first: Int64, _ second: Int64, in zone: TimeZone) -> (Int64, Int64) {
        let identifier = zone.identifier
        let hits = segments.withLock { segments -> (Int64?, Int64?) in
            var hits: (Int64?, Int64?) = (nil, nil)
            for segment in segments where segment.zone == identifier {
                if hits.0 == nil, segment.covers(first) { hits.0 = segment.offset }
                if hits.1 == nil, segment.covers(second) { hits.1 = segment.offset }
            }
            return hits
        }
        return (hits.0 ?? offset(at: first, in: zone), hits.1 ?? offset(at: second, in: zone))
    }

    /// `zone.secondsFromGMT(for:)` at `utc` seconds since 1970.
    func offset(at utc: Int64, in zone: TimeZone) -> Int64 {
        let identifier = zone.identifier
        let hit = segments.withLock { segments -> Int64? in
            for segment in segments where segment.zone == identifier && segment.covers(utc) {
                return segment.offset
            }
            return nil
        }
        if let hit { return hit }
        let instant = Date(timeIntervalSince1970: Double(utc))
        let offset = Int64(zone.secondsFromGMT(for: instant))
        let next = zone.nextDaylightSavingTimeTransition(after: instant).map {
            Int64($0.timeIntervalSince1970.rounded(.down))
        }
        let segment = Segment(zone: identifier, start: utc, end: next ?? Int64.max, offset: offset)
        segments.withLock { segments in
            if segments.count >= Self.capacity { segments.removeFirst() }
            segments.append(segment)
        }
        return offset
    }
}
