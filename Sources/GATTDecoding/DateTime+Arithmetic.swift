import BridgeFoundation

/// Calendar arithmetic and encoding for ``DateTime`` without Foundation: proleptic Gregorian, no time zone
/// (device wall-clock times are shifted as wall-clock times).
extension DateTime {
    /// This wall-clock time moved by `minutes` (Glucose Measurement: user-facing time = base time + offset).
    ///
    /// An unknown date stays unknown. A day past the end of its month (only possible for a value built in code;
    /// decoding rejects it) is carried into the next month.
    public func adding(minutes: Int) -> DateTime {
        guard !isUnknown else { return self }
        let dayNumber = Int(CivilDate.dayNumber(year: year, month: month, day: day))
        let totalMinutes = dayNumber * 1440 + hours * 60 + self.minutes + minutes
        let days = totalMinutes >= 0 ? totalMinutes / 1440 : (totalMinutes - 1439) / 1440
        let minuteOfDay = totalMinutes - days * 1440
        let (y, m, d) = CivilDate.civil(dayNumber: Int64(days))
        return DateTime(year: y, month: m, day: d, hours: minuteOfDay / 60, minutes: minuteOfDay % 60, seconds: seconds)
    }

    /// Day of the week, 1 = Monday … 7 = Sunday (the Current Time numbering); nil when the date is unknown.
    public var dayOfWeek: Int? {
        guard !isUnknown else { return nil }
        // CivilDate counts 0 = Sunday; Current Time counts 1 = Monday … 7 = Sunday.
        let weekday = CivilDate.weekday(dayNumber: CivilDate.dayNumber(year: year, month: month, day: day))
        return weekday == 0 ? 7 : weekday
    }

    /// The 7 octets of a Date Time field. Components must be in their ranges (as decoded values are).
    public var bytes: [UInt8] {
        let year16 = UInt16(truncatingIfNeeded: year)
        return [
            UInt8(truncatingIfNeeded: year16), UInt8(truncatingIfNeeded: year16 >> 8),
            UInt8(truncatingIfNeeded: month), UInt8(truncatingIfNeeded: day),
            UInt8(truncatingIfNeeded: hours), UInt8(truncatingIfNeeded: minutes), UInt8(truncatingIfNeeded: seconds),
        ]
    }
}
