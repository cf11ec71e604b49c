/// A unit of measure, identified by its UCUM code (`kg`, `[lb_av]`, `Cel`, `mm[Hg]`, `/min`).
///
/// An open set: a unit CareBridge cannot convert still round-trips as a value.
public struct HealthUnit: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// Below `KnownUnit.count` a known unit; above, a code from ``CustomUnits``. Either way four bytes and no
    /// reference, so samples carrying units copy and compare without touching reference counts.
    /// `init(rawValue:)` always picks the known number for a known code, so equal numbers mean equal units.
    private let number: UInt32

    public init(rawValue: String) {
        if let known = KnownUnit.byCode[rawValue] {
            number = UInt32(known.rawValue)
        } else {
            number = UInt32(KnownUnit.count) + CustomUnits.shared.number(for: rawValue)
        }
    }

    init(_ known: KnownUnit) {
        number = UInt32(known.rawValue)
    }

    /// The UCUM code.
    public var rawValue: String {
        known?.code ?? CustomUnits.shared.code(number - UInt32(KnownUnit.count))
    }

    /// The unit's entry in the conversion tables, nil for a unit CareBridge cannot convert.
    var known: KnownUnit? {
        number < KnownUnit.count ? KnownUnit(rawValue: UInt8(truncatingIfNeeded: number)) : nil
    }

    var scale: Scale? { known?.scale }

    /// Both units' rows in the conversion table, when both are known.
    @inline(__always)
    static func knownNumbers(_ from: HealthUnit, _ to: HealthUnit) -> (Int, Int)? {
        let count = UInt32(KnownUnit.count)
        guard from.number < count, to.number < count else { return nil }
        return (Int(from.number), Int(to.number))
    }

    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static func == (lhs: HealthUnit, rhs: HealthUnit) -> Bool { lhs.number == rhs.number }

    public func hash(into hasher: inout Hasher) { hasher.combine(number) }

    public var description: String { rawValue }

    public static var kilogram: HealthUnit { HealthUnit(.kilogram) }
    public static var gram: HealthUnit { HealthUnit(.gram) }
    public static var pound: HealthUnit { HealthUnit(.pound) }
    /// The Chinese market catty (市斤) some Xiaomi scales display: exactly 0.5 kg. Not a UCUM unit.
    public static var jin: HealthUnit { HealthUnit(.jin) }
    public static var metre: HealthUnit { HealthUnit(.metre) }
    public static var centimetre: HealthUnit { HealthUnit(.centimetre) }
    public static var inch: HealthUnit { HealthUnit(.inch) }
    public static var kilogramPerSquareMetre: HealthUnit { HealthUnit(.kilogramPerSquareMetre) }
    public static var percent: HealthUnit { HealthUnit(.percent) }
    public static var kilocalorie: HealthUnit { HealthUnit(.kilocalorie) }
    public static var kilojoule: HealthUnit { HealthUnit(.kilojoule) }
    public static var ohm: HealthUnit { HealthUnit(.ohm) }
    public static var celsius: HealthUnit { HealthUnit(.celsius) }
    public static var fahrenheit: HealthUnit { HealthUnit(.fahrenheit) }
    public static var perMinute: HealthUnit { HealthUnit(.perMinute) }
    public static var millisecond: HealthUnit { HealthUnit(.millisecond) }
    public static var second: HealthUnit { HealthUnit(.second) }
    /// RR-interval resolution of the Heart Rate Measurement: 1/1024 s.
    public static var rrTick: HealthUnit { HealthUnit(.rrTick) }
    public static var millimetreOfMercury: HealthUnit { HealthUnit(.millimetreOfMercury) }
    public static var kilopascal: HealthUnit { HealthUnit(.kilopascal) }
    public static var milligramPerDecilitre: HealthUnit { HealthUnit(.milligramPerDecilitre) }
    public static var millimolePerLitre: HealthUnit { HealthUnit(.millimolePerLitre) }
    public static var kilogramPerLitre: HealthUnit { HealthUnit(.kilogramPerLitre) }
    public static var molePerLitre: HealthUnit { HealthUnit(.molePerLitre) }

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
