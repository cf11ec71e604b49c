public import BridgeCore

/// How the samples that fall into one event window become outcome values.
public enum Aggregation: String, Sendable, Hashable, Codable, CaseIterable {
    /// Every sample becomes a value (CareKit's discrete linkage).
    case each
    case first, last, min, max, mean
    /// One summed value (CareKit's cumulative linkage).
    case sum
}

/// Links an assessment task to a quantity type: samples of that type complete its events.
public struct SampleLinkage: Sendable, Hashable, Codable {
    public var type: QuantityType
    /// The unit outcome values are expressed in; must convert to and from `type.canonicalUnit`.
    public var unit: HealthUnit
    public var aggregation: Aggregation

    public init(type: QuantityType, unit: HealthUnit, aggregation: Aggregation) {
        self.type = type
        self.unit = unit
        self.aggregation = aggregation
    }

    /// Why the linkage cannot be used (the unit does not measure the type), with the field, or nil.
    public var validationProblem: (field: String, message: String)? {
        if unit.convert(1, to: type.canonicalUnit) == nil {
            return ("unit", "unit '\(unit)' cannot express \(type.title) (canonical unit \(type.canonicalUnit))")
        }
        return nil
    }

    private enum CodingKeys: String, CodingKey { case type, unit, aggregation }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(QuantityType.self, forKey: .type)
        let text = try container.decode(String.self, forKey: .unit)
        unit = HealthUnit(parsing: text) ?? HealthUnit(rawValue: text)
        aggregation = try container.decode(Aggregation.self, forKey: .aggregation)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try container.encode(unit.rawValue, forKey: .unit)
        try container.encode(aggregation, forKey: .aggregation)
    }
}
