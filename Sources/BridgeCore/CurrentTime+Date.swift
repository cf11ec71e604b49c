public import Foundation
public import GATTDecoding

extension CurrentTime {
    /// The Current Time value that sets a device clock to `date` as wall-clock time in `zone` (devices keep
    /// local time), with the day of the week and 1/256 s fractions filled in.
    public init(date: Date, in zone: TimeZone, adjustReason: AdjustReason = .manualTimeUpdate) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .nanosecond], from: date)
        let dateTime = DateTime(
            year: parts.year ?? 0,
            month: parts.month ?? 0,
            day: parts.day ?? 0,
            hours: parts.hour ?? 0,
            minutes: parts.minute ?? 0,
            seconds: parts.second ?? 0
        )
        let fractions = min(255, (parts.nanosecond ?? 0) * 256 / 1_000_000_000)
        self.init(dateTime: dateTime, fractions256: UInt8(fractions), adjustReason: adjustReason)
    }
}
