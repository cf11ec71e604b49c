public import BridgeCore
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

        public var description: String {
            switch self {
            case .unknownType(let text):
                let known = QuantityType.allCases.map(\.rawValue).joined(separator: ", ")
                return "unknown quantity type '\(text)'; known types: \(known)"
            case .unknownUnit(let text):
                return "unknown unit '\(text)'; use e.g. kg, lb, °C, °F, bpm, mmHg, kPa, %, mg/dL, mmol/L, ms"
            case .incompatibleUnit(let unit, let type):
                return
                    "unit \(unit) cannot express \(type.title); use \(type.canonicalUnit) or a unit convertible to it"
            case .notFinite(let value):
                return "value \(value) is not a finite number"
            case .implausible(let type, let value, let unit, let range):
                return "implausible \(type.title) \(Self.format(value)) \(unit): expected "
                    + "\(Self.format(range.lowerBound))–\(Self.format(range.upperBound)) \(type.canonicalUnit); nothing was stored"
            }
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
