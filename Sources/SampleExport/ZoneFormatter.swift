import BridgeCore
import BridgeFoundation
import Foundation

/// ISO-8601 text with offset for many instants in one zone, asking the zone for its offset only when an
/// instant leaves the stretches of time its ``ZoneOffsetMemo`` knows (the zone lookup costs more than the
/// formatting).
struct ZoneFormatter {
    private var memo: ZoneOffsetMemo

    var zone: TimeZone { memo.zone }

    init(zone: TimeZone) {
        memo = ZoneOffsetMemo(zone: zone)
    }

    mutating func format(_ date: Date) -> String {
        Timestamp.format(date, offsetSeconds: Int(memo.offset(at: date.timeIntervalSince1970)))
    }
}
