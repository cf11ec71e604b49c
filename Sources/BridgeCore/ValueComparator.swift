public import GATTDecoding

/// A result the device could only bound: below (`<`, shown LO) or above (`>`, shown HI) what it can measure.
///
/// IEEE 11073 −INF/+INF where the characteristic defines them so, and the glucose sensor-status bits "result
/// lower/higher than the device can process", become samples with a comparator: a LO glucose is a reading (a
/// hypoglycaemia), never "no value". The sample's value is then the device's limit when its profile knows it
/// (`measurementRange`), else −∞/+∞ ("below/above an unknown limit").
/// - SeeAlso: HL7 FHIR R4 `Quantity.comparator`; ObservationInterpretation codes `<` and `>`.
public enum ValueComparator: String, Sendable, Hashable, CaseIterable, Codable {
    case lessThan = "<"
    case greaterThan = ">"

    /// The comparator an IEEE 11073 special value stands for: −INF → `<`, +INF → `>`; nil for the others
    /// (NaN, NRes and reserved are "no value").
    public init?(_ special: IEEE11073Special) {
        switch special {
        case .negativeInfinity: self = .lessThan
        case .positiveInfinity: self = .greaterThan
        case .nan, .nres, .reserved: return nil
        }
    }

    /// What devices show: `LO` or `HI`.
    public var label: String { self == .lessThan ? "LO" : "HI" }

    /// HL7 ObservationInterpretation display: "Off scale low" / "Off scale high".
    public var interpretationDisplay: String { self == .lessThan ? "Off scale low" : "Off scale high" }

    /// The value that stands for "beyond an unknown limit": −∞ for `<`, +∞ for `>`.
    public var unboundedValue: Double { self == .lessThan ? -.infinity : .infinity }
}
