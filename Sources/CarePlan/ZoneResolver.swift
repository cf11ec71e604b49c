import BridgeFoundation
import Foundation

/// Converts between instants and the zone-less local timeline of one zone, with the DST rules of
/// ``WallClockTime/date(in:)``: a local time in a gap moves forward by the gap, a repeated local time takes
/// the earlier instant.
///
/// Offsets come from a ``ZoneOffsetMemo`` owned by this resolver (one per schedule evaluation, no lock), so
/// generating a year of events asks Foundation a handful of times instead of once per event.
final class ZoneResolver {
    private var memo: ZoneOffsetMemo

    var zone: TimeZone { memo.zone }

    init(_ zone: TimeZone) {
        memo = ZoneOffsetMemo(zone: zone)
    }

    /// UTC offset in seconds at the absolute instant `seconds` (since 1970).
    func offset(at seconds: Double) -> Int64 { memo.offset(at: seconds) }

    /// The local-timeline seconds an instant shows in this zone.
    func local(of seconds: Double) -> Double { seconds + Double(offset(at: seconds)) }

    /// The instant (seconds since 1970) of the local-timeline time `local`.
    func instant(ofLocal local: Int64) -> Double { Double(memo.instant(ofLocal: local)) }

    /// The local day number (days since 1970-01-01) an instant falls on.
    func dayNumber(of seconds: Double) -> Int64 {
        Int64(local(of: seconds).rounded(.down)).floorDiv(86_400)
    }

    /// The instant the local day `day` starts.
    func startOfDay(_ day: Int64) -> Double { instant(ofLocal: day * 86_400) }
}
