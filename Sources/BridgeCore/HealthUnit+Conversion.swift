/// Exact conversions between the units CareBridge reads and the canonical units it stores.
extension HealthUnit {
    /// What a unit measures; conversion is possible only within one dimension.
    public enum Dimension: String, Sendable, Hashable {
        case mass, length, massPerArea, fraction, energy, resistance, temperature, frequency, duration
        case pressure, glucoseConcentration
    }

    /// A map to the dimension's base unit: `base = value × numerator / denominator`. Integers, so that a
    /// conversion can use the exact reduced ratio (mol/L → mmol/L is exactly × 1000).
    struct Scale: Sendable {
        var dimension: Dimension
        var numerator: Int64
        var denominator: Int64 = 1
    }

    /// Molar mass of glucose, g/mol, used between mmol/L and mg/dL.
    public static let glucoseMolarMass = 180.156

    /// The dimension, or nil for a unit CareBridge cannot convert.
    public var dimension: Dimension? { scale?.dimension }

    /// Converts `value` from this unit to `target`.
    /// - Returns: nil when either unit is unknown or the dimensions differ.
    @inline(__always)
    public func convert(_ value: Double, to target: HealthUnit) -> Double? {
        guard let (from, to) = Self.knownNumbers(self, target) else { return self == target ? value : nil }
        return UnitConversion.between(from, to).apply(to: value)
    }
}
