public import Foundation
public import GATTDecoding

extension CurrentTime {
    /// The Current Time value that sets a device clock to `date` as wall-clock time in `zone` (devices keep
    /// local time), with the day of the week and 1/256 s fractions filled in.
    public init(date: Date, in zone: TimeZone, adjustReason: AdjustReason = .manualTimeUpdate) {
        let dateTime = DateTime(wallClockOf: date, in: zone)
        let fraction = date.timeIntervalSince1970 - date.timeIntervalSince1970.rounded(.down)
        let fractions = min(255, Int(fraction * 256))
        self.init(dateTime: dateTime, fractions256: UInt8(fractions), adjustReason: adjustReason)
    }
}
