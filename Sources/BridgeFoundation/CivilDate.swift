/// Proleptic Gregorian calendar arithmetic on day numbers (days since 1970-01-01), without Foundation calendars:
/// the one copy of H. Hinnant's `days_from_civil` / `civil_from_days` for device clocks, timestamps and schedules.
public enum CivilDate {
    /// (year, month, day) → days since 1970-01-01.
    @inlinable
    public static func dayNumber(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Days since 1970-01-01 → (year, month, day).
    @inlinable
    public static func civil(dayNumber days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }

    /// Whether `year` has a 29 February.
    public static func isLeapYear(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    /// 28–31.
    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Day of the week of a day number, 0 = Sunday … 6 = Saturday (1970-01-01 was a Thursday).
    public static func weekday(dayNumber days: Int64) -> Int {
        Int((days + 4).floorMod(7))
    }
}

extension BinaryInteger {
    /// Division rounding towards negative infinity (`-1 / 86_400` is `-1`, not `0`).
    @inlinable
    package func floorDiv(_ divisor: Self) -> Self {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }

    /// The remainder of ``floorDiv(_:)``: has the divisor's sign.
    @inlinable
    package func floorMod(_ divisor: Self) -> Self { self - floorDiv(divisor) * divisor }
}
