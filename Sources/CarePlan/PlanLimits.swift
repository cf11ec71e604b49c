/// The ranges every number of a plan must lie in, in one place: the plan reader refuses a number outside them
/// (with its JSON path), and the stored forms (`Codable`) refuse them when a store written by an earlier
/// release holds one, so no number reaches the schedule engine, the alert rules or an integer conversion where
/// it could overflow.
///
/// The bounds are generous for care (a year-long event, a hundred years of days) and far from where the engine's
/// `Int64` seconds and `Double` instants lose exactness or overflow.
public enum PlanLimits {
    /// Seconds an event may last: 0 (an instant) … 366 days.
    public static let durationSeconds: ClosedRange<Double> = 0...31_622_400
    /// Each component of an interval (days, weeks, months, hours, minutes).
    public static let intervalComponent: ClosedRange<Int> = 0...1_000_000
    /// Events on one weekday in the weekly form.
    public static let weeklyCount: ClosedRange<Int> = 0...1000
    /// An adherence rule's `fewerThan` (events of one day).
    public static let adherenceCount: ClosedRange<Int> = 1...100_000
    /// A trend rule's `withinDays`, and retention's `keepRawDays`.
    public static let days: ClosedRange<Int> = 1...36_500
    /// Any other number: thresholds, trend changes, target values, answer scales (whole numbers stay exact).
    public static let magnitude: ClosedRange<Double> = -1e15...1e15

    /// Why `value` cannot be used where `range` applies (`1e+19 is out of range (0…31622400)`), or nil.
    public static func problem(_ value: Double, in range: ClosedRange<Double>) -> String? {
        range.contains(value)
            ? nil : "\(text(value)) is out of range (\(text(range.lowerBound))…\(text(range.upperBound)))"
    }

    /// Why `value` cannot be used where `range` applies, or nil.
    public static func problem(_ value: Int, in range: ClosedRange<Int>) -> String? {
        range.contains(value) ? nil : "\(value) is out of range (\(range.lowerBound)…\(range.upperBound))"
    }

    /// The whole number `value` is, when it is one inside `range` (a stored `Double` read back as a count
    /// without trapping on 2^63).
    public static func wholeNumber(_ value: Double, in range: ClosedRange<Int>) -> Int? {
        guard value == value.rounded(), value >= Double(range.lowerBound), value <= Double(range.upperBound) else {
            return nil
        }
        return Int(value)
    }

    /// `31622400`, `1e+19`, `0.5`.
    static func text(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
