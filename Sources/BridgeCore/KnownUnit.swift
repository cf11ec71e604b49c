/// The units CareBridge can convert: their UCUM codes and their scales to the dimension's base unit.
///
/// A closed list, so a ``HealthUnit`` naming one of them is a single byte: copying, comparing and converting
/// such a unit touches no string and no reference count (units are on the ingest hot path).
enum KnownUnit: UInt8, CaseIterable, Sendable {
    case kilogram, gram, pound, jin
    case metre, centimetre, inch
    case kilogramPerSquareMetre
    case percent
    case kilocalorie, kilojoule
    case ohm
    case celsius, fahrenheit
    case perMinute
    case millisecond, second, rrTick
    case millimetreOfMercury, kilopascal
    case milligramPerDecilitre, kilogramPerLitre, millimolePerLitre, molePerLitre

    /// The UCUM code (CareBridge's own bracketed code for the non-UCUM catty).
    var code: String {
        switch self {
        case .kilogram: "kg"
        case .gram: "g"
        case .pound: "[lb_av]"
        case .jin: "[jin]"
        case .metre: "m"
        case .centimetre: "cm"
        case .inch: "[in_i]"
        case .kilogramPerSquareMetre: "kg/m2"
        case .percent: "%"
        case .kilocalorie: "kcal"
        case .kilojoule: "kJ"
        case .ohm: "Ohm"
        case .celsius: "Cel"
        case .fahrenheit: "[degF]"
        case .perMinute: "/min"
        case .millisecond: "ms"
        case .second: "s"
        case .rrTick: "s/1024"
        case .millimetreOfMercury: "mm[Hg]"
        case .kilopascal: "kPa"
        case .milligramPerDecilitre: "mg/dL"
        case .kilogramPerLitre: "kg/L"
        case .millimolePerLitre: "mmol/L"
        case .molePerLitre: "mol/L"
        }
    }

    /// `base = value × numerator / denominator`, in integers so that conversions use the exact reduced ratio.
    var scale: HealthUnit.Scale {
        switch self {
        case .kilogram: .init(dimension: .mass, numerator: 1)
        case .gram: .init(dimension: .mass, numerator: 1, denominator: 1000)
        case .pound: .init(dimension: .mass, numerator: 45_359_237, denominator: 100_000_000)
        case .jin: .init(dimension: .mass, numerator: 1, denominator: 2)
        case .metre: .init(dimension: .length, numerator: 1)
        case .centimetre: .init(dimension: .length, numerator: 1, denominator: 100)
        case .inch: .init(dimension: .length, numerator: 254, denominator: 10_000)
        case .kilogramPerSquareMetre: .init(dimension: .massPerArea, numerator: 1)
        case .percent: .init(dimension: .fraction, numerator: 1)
        case .kilocalorie: .init(dimension: .energy, numerator: 1)
        case .kilojoule: .init(dimension: .energy, numerator: 1000, denominator: 4184)
        case .ohm: .init(dimension: .resistance, numerator: 1)
        case .celsius, .fahrenheit: .init(dimension: .temperature, numerator: 1)
        case .perMinute: .init(dimension: .frequency, numerator: 1)
        case .millisecond: .init(dimension: .duration, numerator: 1)
        case .second: .init(dimension: .duration, numerator: 1000)
        case .rrTick: .init(dimension: .duration, numerator: 1000, denominator: 1024)
        case .millimetreOfMercury: .init(dimension: .pressure, numerator: 1)
        case .kilopascal: .init(dimension: .pressure, numerator: 7_500_615_758, denominator: 1_000_000_000)
        case .milligramPerDecilitre: .init(dimension: .glucoseConcentration, numerator: 1)
        case .kilogramPerLitre: .init(dimension: .glucoseConcentration, numerator: 100_000)
        // 1 mmol/L × 180.156 g/mol = 180.156 mg/L = 18.0156 mg/dL
        case .millimolePerLitre: .init(dimension: .glucoseConcentration, numerator: 180_156, denominator: 10_000)
        case .molePerLitre: .init(dimension: .glucoseConcentration, numerator: 180_156_000, denominator: 10_000)
        }
    }

    /// How many there are (the raw values run from 0 to `count - 1`).
    static var count: Int { Int(KnownUnit.molePerLitre.rawValue) + 1 }

    /// Known units by code, for reading a unit back from text.
    static let byCode: [String: KnownUnit] = Dictionary(uniqueKeysWithValues: allCases.map { ($0.code, $0) })
}
