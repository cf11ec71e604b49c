import ArgumentParser

/// Range checks for numeric options, so that no value reaches a conversion that traps (`Int64(1e17 * 1000)`,
/// `Duration.seconds(.infinity)`) and every refusal says which option, what range and what was given.
enum NumericOption {
    /// A day: the longest wait that makes sense for a timeout or retry delay.
    static let day: Double = 86_400
    /// Ten years: the longest run or recording.
    static let tenYears: Double = 315_576_000
    /// A hundred years of days: the longest look back (as a plan's `withinDays` and `keepRawDays`).
    static let hundredYearsOfDays = 36_500

    /// Throws a ``ValidationError`` unless `value` is finite and in `range`.
    static func check(
        _ value: Double,
        _ option: String,
        in range: ClosedRange<Double>,
        unit: String = "seconds"
    )
        throws
    {
        guard value.isFinite, range.contains(value) else {
            throw ValidationError(
                "\(option) must be \(describe(range.lowerBound))–\(describe(range.upperBound)) \(unit), "
                    + "not \(describe(value))"
            )
        }
    }

    /// Like ``check(_:_:in:unit:)`` with a lower bound that is itself excluded (`> 0`).
    static func checkPositive(
        _ value: Double,
        _ option: String,
        atMost upper: Double,
        unit: String = "seconds"
    )
        throws
    {
        guard value.isFinite, value > 0, value <= upper else {
            throw ValidationError(
                "\(option) must be more than 0 and at most \(describe(upper)) \(unit), not \(describe(value))"
            )
        }
    }

    /// Throws a ``ValidationError`` unless `value` is in `range`.
    static func check(_ value: Int, _ option: String, in range: ClosedRange<Int>) throws {
        guard range.contains(value) else {
            throw ValidationError("\(option) must be \(range.lowerBound)–\(range.upperBound), not \(value)")
        }
    }

    /// `86400` rather than `86400.0`; `1e+17` stays as Swift prints it.
    static func describe(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
