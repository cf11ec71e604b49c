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

    /// Every unit CareBridge converts, by UCUM code.
    static let scaleTable: [Scale] = scaleList.map(\.1)
    static let scaleIndex: [String: UInt8] = Dictionary(
        uniqueKeysWithValues: scaleList.enumerated().map { ($0.element.0, UInt8($0.offset)) }
    )
    private static let scaleList: [(String, Scale)] = [
        ("kg", Scale(dimension: .mass, numerator: 1)),
        ("g", Scale(dimension: .mass, numerator: 1, denominator: 1000)),
        ("[lb_av]", Scale(dimension: .mass, numerator: 45_359_237, denominator: 100_000_000)),
        ("[jin]", Scale(dimension: .mass, numerator: 1, denominator: 2)),
        ("m", Scale(dimension: .length, numerator: 1)),
        ("cm", Scale(dimension: .length, numerator: 1, denominator: 100)),
        ("[in_i]", Scale(dimension: .length, numerator: 254, denominator: 10_000)),
        ("kg/m2", Scale(dimension: .massPerArea, numerator: 1)),
        ("%", Scale(dimension: .fraction, numerator: 1)),
        ("kcal", Scale(dimension: .energy, numerator: 1)),
        ("kJ", Scale(dimension: .energy, numerator: 1000, denominator: 4184)),
        ("Ohm", Scale(dimension: .resistance, numerator: 1)),
        ("Cel", Scale(dimension: .temperature, numerator: 1)),
        ("[degF]", Scale(dimension: .temperature, numerator: 1)),
        ("/min", Scale(dimension: .frequency, numerator: 1)),
        ("ms", Scale(dimension: .duration, numerator: 1)),
        ("s", Scale(dimension: .duration, numerator: 1000)),
        ("s/1024", Scale(dimension: .duration, numerator: 1000, denominator: 1024)),
        ("mm[Hg]", Scale(dimension: .pressure, numerator: 1)),
        ("kPa", Scale(dimension: .pressure, numerator: 7_500_615_758, denominator: 1_000_000_000)),
        ("mg/dL", Scale(dimension: .glucoseConcentration, numerator: 1)),
        ("kg/L", Scale(dimension: .glucoseConcentration, numerator: 100_000)),
        // 1 mmol/L × 180.156 g/mol = 180.156 mg/L = 18.0156 mg/dL
        ("mmol/L", Scale(dimension: .glucoseConcentration, numerator: 180_156, denominator: 10_000)),
        ("mol/L", Scale(dimension: .glucoseConcentration, numerator: 180_156_000, denominator: 10_000)),
    ]

    /// The dimension, or nil for a unit CareBridge cannot convert.
    public var dimension: Dimension? { scale?.dimension }

    /// Converts `value` from this unit to `target`.
    /// - Returns: nil when either unit is unknown or the dimensions differ.
    public func convert(_ value: Double, to target: HealthUnit) -> Double? {
        if hasSameScale(as: target) || self == target { return value }
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
