import BridgeCore
import GATTDecoding

/// Proleptic Gregorian date arithmetic on day numbers (days since 1970-01-01), without Foundation calendars.
enum CivilDate {
    static func daysInMonth(year: Int, month: Int) -> Int { DateTime.daysInMonth(year: year, month: month) }

    /// (year, month, day) → days since 1970-01-01.
    static func dayNumber(year: Int, month: Int, day: Int) -> Int64 {
        Timestamp.days(year: year, month: month, day: day)
    }

    /// Days since 1970-01-01 → (year, month, day).
    static func civil(dayNumber days: Int64) -> (Int, Int, Int) { Timestamp.civil(fromDays: days) }
}

extension Int64 {
    func floorDiv(_ divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }

    func floorMod(_ divisor: Int64) -> Int64 { self - floorDiv(divisor) * divisor }
}
