public import Foundation

/// A reading typed in by a person (`carebridge ingest bodyMass 72.4 kg`): checked for a known type, a unit of
/// the right dimension and a plausible value before anything is stored.
public enum ManualReading {
    /// Why a manual reading was refused.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case unknownType(String)
        case unknownUnit(String)
        case incompatibleUnit(HealthUnit, QuantityType)
        case notFinite(Double)
        case implausible(QuantityType, value: Double, unit: HealthUnit, range: ClosedRange<Double>)
        /// A unit that is not known, for a reading of this type.
        case unknownUnitFor(String, QuantityType)
        /// The value word is not a decimal number (`0x46`, `7O`, `inf`).
        case notANumber(String)
        /// Nothing after the type.
        case missingValue(QuantityType)
        /// A number without a unit.
        case missingUnit(QuantityType, String)
        /// A negative value for a type that cannot be negative.
        case negative(QuantityType, String)
        /// `120/80` for a type that is not blood pressure.
        case pairForOtherType(QuantityType, String)
        /// `bloodPressure` with one number.
        case bloodPressureNeedsTwo(String)
        /// `120/0`: a blood pressure of zero (no reading a monitor shows).
        case zeroPressure(String)
        /// `80/120`: the diastolic first.
        case bloodPressureOrder(String)
        /// Words that are no reading (`72 kg kg`).
        case unreadable(QuantityType, String)

        public var description: String {
            switch self {
            case .unknownType(let text):
                let known = QuantityType.allCases.map(\.rawValue).joined(separator: ", ")
                return "unknown quantity type '\(text)'; known types: \(known)"
            case .unknownUnit(let text):
                return "unknown unit '\(text)'; use e.g. kg, lb, °C, °F, bpm, mmHg, kPa, %, mg/dL, mmol/L, ms"
            case .incompatibleUnit(let unit, let type):
                return "unit \(unit) cannot express \(type.title); use \(Self.units(for: type)), e.g. "
                    + Self.example(for: type)
            case .notFinite(let value):
                return "value \(value) is not a finite number"
            case .implausible(let type, let value, let unit, let range):
                return "implausible \(type.title) \(Self.format(value)) \(unit): expected "
                    + "\(Self.format(range.lowerBound))–\(Self.format(range.upperBound)) \(type.canonicalUnit); nothing was stored"
            case .unknownUnitFor(let text, let type):
                return "unknown unit '\(text)' for \(type.title); use \(Self.units(for: type)), e.g. "
                    + Self.example(for: type)
            case .notANumber(let text):
                return "'\(text)' is not a decimal number (such as 72.4 or 72,4)"
            case .missingValue(let type):
                return "no value given for \(type.title); write it with its unit, e.g. \(Self.example(for: type))"
            case .missingUnit(let type, let text):
                return "'\(text)' has no unit; write it with one (\(Self.units(for: type))), e.g. "
                    + Self.example(for: type)
            case .negative(let type, let text):
                return "\(type.title) cannot be negative ('\(text)'); type the reading as the device shows it, "
                    + "e.g. \(Self.example(for: type)); nothing was stored"
            case .pairForOtherType(let type, let text):
                return "'\(text)' is two numbers, but only blood pressure is written that way (systolic/diastolic); "
                    + "write \(type.title) as e.g. \(Self.example(for: type))"
            case .bloodPressureNeedsTwo(let text):
                return "blood pressure is two numbers, systolic/diastolic, e.g. `bloodPressure 120/80 mmHg` "
                    + "(got '\(text)'); one value alone: `bloodPressureSystolic 120 mmHg`"
            case .zeroPressure(let text):
                return "a blood pressure of 0 is no reading ('\(text)'); type both numbers as the monitor shows "
                    + "them, systolic/diastolic, e.g. 120/80 mmHg; nothing was stored"
            case .bloodPressureOrder(let text):
                return "in '\(text)' the first number (systolic) must be higher than the second (diastolic), "
                    + "e.g. 120/80 mmHg; nothing was stored"
            case .unreadable(let type, let text):
                return "cannot read '\(text)' as \(type.title); write e.g. \(Self.example(for: type))"
                    + (type.canonicalUnit == .kilogram ? ", 72.4kg, 160 lb or 11 st 4 lb" : "")
            }
        }

        /// A reading of `type` as someone would type it.
        static func example(for type: QuantityType) -> String {
            switch type {
            case .bodyMass: "72.4 kg"
            case .bodyTemperature: "37.2 °C or 98.6 °F"
            case .heartRate: "72 bpm"
            case .bloodPressureSystolic, .bloodPressureDiastolic: "120/80 mmHg"
            case .meanArterialPressure: "93 mmHg"
            case .bloodGlucose: "95 mg/dL or 5.3 mmol/L"
            case .oxygenSaturation, .bodyFatPercentage: "97 %"
            case .rrInterval: "800 ms"
            default:
                "\(format((plausibleRange(for: type).lowerBound + plausibleRange(for: type).upperBound) / 2)) "
                    + type.canonicalUnit.rawValue
            }
        }

        /// The unit spellings that can express `type`.
        static func units(for type: QuantityType) -> String {
            let spellings = [
                "kg", "lb", "g", "°C", "°F", "bpm", "mmHg", "kPa", "mg/dL", "mmol/L", "%", "ms", "s", "m", "cm", "in",
                "kcal", "kJ", "ohm", "kg/m2",
            ]
            var usable = spellings.filter { text in
                HealthUnit(parsing: text).flatMap { $0.convert(1, to: type.canonicalUnit) } != nil
            }
            if type.canonicalUnit == .kilogram { usable.append("st") }
            return usable.joined(separator: ", ")
        }

        static func format(_ value: Double) -> String {
            let rounded = (value * 100).rounded() / 100
            return rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int64(rounded)) : String(rounded)
        }
    }

    /// The range a value of `type` (in its canonical unit) must lie in to be accepted by hand: the same
    /// ``BridgeCore/PlausibilityTable/standard`` that quarantines device samples.
    public static func plausibleRange(for type: QuantityType) -> ClosedRange<Double> {
        PlausibilityTable.standard.range(for: type) ?? -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude
    }

    /// Reads the type name as typed (`bodyMass`, `body-mass`, `body mass`, case-insensitive).
    public static func parseType(_ text: String) throws(Failure) -> QuantityType {
        let key = text.lowercased().filter { $0.isLetter }
        if let type = QuantityType.allCases.first(where: { $0.rawValue.lowercased() == key }) { return type }
        if let type = QuantityType.allCases.first(where: { $0.title.lowercased().filter(\.isLetter) == key }) {
            return type
        }
        throw .unknownType(text)
    }

    /// Builds the manual sample: parses the unit, converts to the canonical unit, checks plausibility.
    /// - Parameters:
    ///   - type: what was measured.
    ///   - value: the value as typed.
    ///   - unitText: the unit as typed (`kg`, `lbs`, `°F`, `bpm`, …).
    ///   - at: when it was measured.
    ///   - note: free text kept in the sample's metadata under `note`.
    ///   - receivedAt: when it was entered.
    /// - Throws: ``Failure`` saying what is wrong.
    public static func sample(
        type: QuantityType,
        value: Double,
        unit unitText: String,
        at: Date,
        note: String? = nil,
        receivedAt: Date
    ) throws(Failure) -> QuantitySample {
        guard value.isFinite else { throw .notFinite(value) }
        guard let unit = HealthUnit(parsing: unitText) else { throw .unknownUnit(unitText) }
        guard let canonical = unit.convert(value, to: type.canonicalUnit) else { throw .incompatibleUnit(unit, type) }
        let range = plausibleRange(for: type)
        guard range.contains(canonical) else {
            throw .implausible(type, value: canonical, unit: type.canonicalUnit, range: range)
        }
        var metadata: [String: String] = [:]
        if let note, !note.isEmpty { metadata["note"] = note }
        return QuantitySample(
            type: type,
            value: canonical,
            unit: type.canonicalUnit,
            start: at,
            transmittedValue: value,
            transmittedUnit: unit,
            source: .manual,
            receivedAt: receivedAt,
            metadata: metadata
        )
    }
}
