/// How a value in one known unit becomes a value in another: worked out once per pair of units, so a
/// conversion on the ingest hot path is one table read and at most one multiplication or division.
enum UnitConversion: Sendable {
    case identity
    /// × the exact reduced ratio when its denominator is 1.
    case multiply(Double)
    /// ÷ the exact reduced ratio's denominator when its numerator is 1 (dividing by 1024 stays exact).
    case divide(Double)
    /// × numerator / denominator, the ratio rounded once.
    case ratio(Double)
    case fahrenheitToCelsius
    case celsiusToFahrenheit
    /// Different dimensions.
    case impossible

    @inline(__always)
    func apply(to value: Double) -> Double? {
        switch self {
        case .identity: value
        case .multiply(let factor): value * factor
        case .divide(let divisor): value / divisor
        case .ratio(let ratio): value * ratio
        // (F − 32) × 5/9, in that order, so that no rounding drift creeps in.
        case .fahrenheitToCelsius: (value - 32) * 5 / 9
        case .celsiusToFahrenheit: value * 9 / 5 + 32
        case .impossible: nil
        }
    }

    /// The conversion between the known units with raw values `from` and `to` (both below `KnownUnit.count`).
    @inline(__always)
    static func between(_ from: Int, _ to: Int) -> UnitConversion {
        table[from &* KnownUnit.count &+ to]
    }

    private static let table: [UnitConversion] = {
        let units = KnownUnit.allCases
        precondition(units.count == KnownUnit.count, "KnownUnit.molePerLitre must stay the last case")
        return units.flatMap { from in units.map { to in make(from, to) } }
    }()

    private static func make(_ from: KnownUnit, _ to: KnownUnit) -> UnitConversion {
        if from == to { return .identity }
        let source = from.scale
        let target = to.scale
        guard source.dimension == target.dimension else { return .impossible }
        if source.dimension == .temperature {
            return from == .fahrenheit ? .fahrenheitToCelsius : .celsiusToFahrenheit
        }
        // value × (source.n / source.d) / (target.n / target.d), with the ratio reduced to lowest terms first.
        var numerator = source.numerator * target.denominator
        var denominator = source.denominator * target.numerator
        let divisor = gcd(numerator, denominator)
        numerator /= divisor
        denominator /= divisor
        if denominator == 1 { return numerator == 1 ? .identity : .multiply(Double(numerator)) }
        if numerator == 1 { return .divide(Double(denominator)) }
        return .ratio(Double(numerator) / Double(denominator))
    }

    private static func gcd(_ a: Int64, _ b: Int64) -> Int64 {
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        return x
    }
}
