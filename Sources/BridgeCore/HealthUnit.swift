/// A unit of measure, identified by its UCUM code (`kg`, `[lb_av]`, `Cel`, `mm[Hg]`, `/min`).
///
/// An open set: a unit CareBridge cannot convert still round-trips as a value.
public struct HealthUnit: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: String
    /// The conversion scale, looked up once when the unit is made (conversions are on the ingest hot path).
    private let scaleIndex: UInt8

    public init(rawValue: String) {
        self.rawValue = rawValue
        self.scaleIndex = HealthUnit.scaleIndex[rawValue] ?? UInt8.max
    }

    /// Same known unit, decided without comparing strings.
    func hasSameScale(as other: HealthUnit) -> Bool { scaleIndex != UInt8.max && scaleIndex == other.scaleIndex }

    var scale: Scale? { scaleIndex == UInt8.max ? nil : HealthUnit.scaleTable[Int(scaleIndex)] }

    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static func == (lhs: HealthUnit, rhs: HealthUnit) -> Bool { lhs.rawValue == rhs.rawValue }

    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    public var description: String { rawValue }

    public static let kilogram = HealthUnit(rawValue: "kg")
    public static let gram = HealthUnit(rawValue: "g")
    public static let pound = HealthUnit(rawValue: "[lb_av]")
    /// The Chinese market catty (市斤) some Xiaomi scales display: exactly 0.5 kg. Not a UCUM unit.
    public static let jin = HealthUnit(rawValue: "[jin]")
    public static let metre = HealthUnit(rawValue: "m")
    public static let centimetre = HealthUnit(rawValue: "cm")
    public static let inch = HealthUnit(rawValue: "[in_i]")
    public static let kilogramPerSquareMetre = HealthUnit(rawValue: "kg/m2")
    public static let percent = HealthUnit(rawValue: "%")
    public static let kilocalorie = HealthUnit(rawValue: "kcal")
    public static let kilojoule = HealthUnit(rawValue: "kJ")
    public static let ohm = HealthUnit(rawValue: "Ohm")
    public static let celsius = HealthUnit(rawValue: "Cel")
    public static let fahrenheit = HealthUnit(rawValue: "[degF]")
    public static let perMinute = HealthUnit(rawValue: "/min")
    public static let millisecond = HealthUnit(rawValue: "ms")
    public static let second = HealthUnit(rawValue: "s")
    /// RR-interval resolution of the Heart Rate Measurement: 1/1024 s.
    public static let rrTick = HealthUnit(rawValue: "s/1024")
    public static let millimetreOfMercury = HealthUnit(rawValue: "mm[Hg]")
    public static let kilopascal = HealthUnit(rawValue: "kPa")
    public static let milligramPerDecilitre = HealthUnit(rawValue: "mg/dL")
    public static let millimolePerLitre = HealthUnit(rawValue: "mmol/L")
    public static let kilogramPerLitre = HealthUnit(rawValue: "kg/L")
    public static let molePerLitre = HealthUnit(rawValue: "mol/L")

    /// Reads the spellings people type (`lbs`, `°F`, `degC`, `bpm`, `mmHg`) as well as UCUM codes.
    /// - Returns: nil for a unit CareBridge does not know.
    public init?(parsing text: String) {
        let trimmed = text.trimmingSpaces
        let key = trimmed.lowercased()
        let aliases: [String: HealthUnit] = [
            "kg": .kilogram, "kilogram": .kilogram, "kilograms": .kilogram,
            "g": .gram,
            "lb": .pound, "lbs": .pound, "[lb_av]": .pound, "pound": .pound, "pounds": .pound,
            "jin": .jin, "[jin]": .jin,
            "m": .metre, "cm": .centimetre, "in": .inch, "[in_i]": .inch, "inch": .inch,
            "kg/m2": .kilogramPerSquareMetre, "kg/m²": .kilogramPerSquareMetre,
            "%": .percent, "percent": .percent,
            "kcal": .kilocalorie, "kj": .kilojoule,
            "ohm": .ohm, "Ω": .ohm,
            "cel": .celsius, "c": .celsius, "°c": .celsius, "degc": .celsius, "celsius": .celsius,
            "[degf]": .fahrenheit, "f": .fahrenheit, "°f": .fahrenheit, "degf": .fahrenheit,
            "fahrenheit": .fahrenheit,
            "/min": .perMinute, "bpm": .perMinute, "1/min": .perMinute, "{beats}/min": .perMinute,
            "ms": .millisecond, "s": .second, "s/1024": .rrTick,
            "mm[hg]": .millimetreOfMercury, "mmhg": .millimetreOfMercury, "kpa": .kilopascal,
            "mg/dl": .milligramPerDecilitre, "mmol/l": .millimolePerLitre,
            "kg/l": .kilogramPerLitre, "mol/l": .molePerLitre,
        ]
        guard let unit = aliases[key] ?? aliases[trimmed] else { return nil }
        self = unit
    }
}

extension String {
    var trimmingSpaces: String {
        var scalars = Substring(self)
        while scalars.first?.isWhitespace == true { scalars = scalars.dropFirst() }
        while scalars.last?.isWhitespace == true { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
