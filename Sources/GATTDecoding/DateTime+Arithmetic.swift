/// Calendar arithmetic and encoding for ``DateTime`` without Foundation: proleptic Gregorian, no time zone
/// (device wall-clock times are shifted as wall-clock times).
extension DateTime {
    /// This wall-clock time moved by `minutes` (Glucose Measurement: user-facing time = base time + offset).
    ///
    /// An unknown date stays unknown. A day past the end of its month (only possible for a value built in code;
    /// decoding rejects it) is carried into the next month.
    public func adding(minutes: Int) -> DateTime {
        guard !isUnknown else { return self }
        let dayNumber = Self.days(year: year, month: month, day: day)
        let totalMinutes = dayNumber * 1440 + hours * 60 + self.minutes + minutes
        let days = totalMinutes >= 0 ? totalMinutes / 1440 : (totalMinutes - 1439) / 1440
        let minuteOfDay = totalMinutes - days * 1440
        let (y, m, d) = Self.civil(days: days)
        return DateTime(year: y, month: m, day: d, hours: minuteOfDay / 60, minutes: minuteOfDay % 60, seconds: seconds)
    }

    /// Day of the week, 1 = Monday … 7 = Sunday (the Current Time numbering); nil when the date is unknown.
    public var dayOfWeek: Int? {
        guard !isUnknown else { return nil }
        // 1970-01-01 was a Thursday (4).
        let days = Self.days(year: year, month: month, day: day)
        let weekday = ((days % 7) + 7 + 3) % 7
        return weekday + 1
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

    /// Days since 1970-01-01 (H. Hinnant's days_from_civil).
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Days since 1970-01-01 → (year, month, day) (H. Hinnant's civil_from_days).
    static func civil(days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
