/// Exact conversions between the units CareBridge reads and the canonical units it stores.
extension HealthUnit {
    /// What a unit measures; conversion is possible only within one dimension.
    public enum Dimension: String, Sendable, Hashable {
        case mass, length, massPerArea, fraction, energy, resistance, temperature, frequency, duration
        case pressure, glucoseConcentration
    }

    /// A map to the dimension's base unit: `base = value × numerator / denominator`. Integers, so that a
    /// conversion can use the exact reduced ratio (mol/L → mmol/L is exactly × 1000).
    private struct Scale {
        var dimension: Dimension
        var numerator: Int64
        var denominator: Int64 = 1
    }

    /// Molar mass of glucose, g/mol, used between mmol/L and mg/dL.
    public static let glucoseMolarMass = 180.156

    private var scale: Scale? {
        switch self {
        case .kilogram: Scale(dimension: .mass, numerator: 1)
        case .gram: Scale(dimension: .mass, numerator: 1, denominator: 1000)
        case .pound: Scale(dimension: .mass, numerator: 45_359_237, denominator: 100_000_000)
        case .jin: Scale(dimension: .mass, numerator: 1, denominator: 2)
        case .metre: Scale(dimension: .length, numerator: 1)
        case .centimetre: Scale(dimension: .length, numerator: 1, denominator: 100)
        case .inch: Scale(dimension: .length, numerator: 254, denominator: 10_000)
        case .kilogramPerSquareMetre: Scale(dimension: .massPerArea, numerator: 1)
        case .percent: Scale(dimension: .fraction, numerator: 1)
        case .kilocalorie: Scale(dimension: .energy, numerator: 1)
        case .kilojoule: Scale(dimension: .energy, numerator: 1000, denominator: 4184)
        case .ohm: Scale(dimension: .resistance, numerator: 1)
        case .celsius, .fahrenheit: Scale(dimension: .temperature, numerator: 1)
        case .perMinute: Scale(dimension: .frequency, numerator: 1)
        case .millisecond: Scale(dimension: .duration, numerator: 1)
        case .second: Scale(dimension: .duration, numerator: 1000)
        case .rrTick: Scale(dimension: .duration, numerator: 1000, denominator: 1024)
        case .millimetreOfMercury: Scale(dimension: .pressure, numerator: 1)
        case .kilopascal: Scale(dimension: .pressure, numerator: 7_500_615_758, denominator: 1_000_000_000)
        case .milligramPerDecilitre: Scale(dimension: .glucoseConcentration, numerator: 1)
        case .kilogramPerLitre: Scale(dimension: .glucoseConcentration, numerator: 100_000)
        // 1 mmol/L × 180.156 g/mol = 180.156 mg/L = 18.0156 mg/dL
        case .millimolePerLitre: Scale(dimension: .glucoseConcentration, numerator: 180_156, denominator: 10_000)
        case .molePerLitre: Scale(dimension: .glucoseConcentration, numerator: 180_156_000, denominator: 10_000)
        default: nil
        }
    }

    /// The dimension, or nil for a unit CareBridge cannot convert.
    public var dimension: Dimension? { scale?.dimension }

    /// Converts `value` from this unit to `target`.
    /// - Returns: nil when either unit is unknown or the dimensions differ.
    public func convert(_ value: Double, to target: HealthUnit) -> Double? {
        if self == target { return value }
        guard let from = scale, let to = target.scale, from.dimension == to.dimension else { return nil }
        if from.dimension == .temperature {
            // Fahrenheit ⇄ Celsius exactly: (F − 32) × 5/9, computed in that order to avoid rounding drift.
            let celsius = self == .fahrenheit ? (value - 32) * 5 / 9 : value
            return target == .fahrenheit ? celsius * 9 / 5 + 32 : celsius
        }
        // value × (from.n / from.d) / (to.n / to.d), with the ratio reduced to lowest terms first.
        var numerator = from.numerator * to.denominator
        var denominator = from.denominator * to.numerator
        let divisor = Self.gcd(numerator, denominator)
        numerator /= divisor
        denominator /= divisor
        if denominator == 1 { return value * Double(numerator) }
        if numerator == 1 { return value / Double(denominator) }
        return value * (Double(numerator) / Double(denominator))
    }

    private static func gcd(_ a: Int64, _ b: Int64) -> Int64 {
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        return x
    }
}
