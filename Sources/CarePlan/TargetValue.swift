public import BridgeCore

/// A goal attached to a schedule element, e.g. 8000 steps or 70 kg; progress sums outcome values toward it.
public struct TargetValue: Sendable, Hashable, Codable {
    public var value: Double
    public var unit: HealthUnit?

    public init(value: Double, unit: HealthUnit? = nil) {
        self.value = value
        self.unit = unit
    }

    private enum CodingKeys: String, CodingKey { case value, unit }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        value = try container.decode(Double.self, forKey: .value)
        if let text = try container.decodeIfPresent(String.self, forKey: .unit) {
            unit = HealthUnit(parsing: text) ?? HealthUnit(rawValue: text)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(value, forKey: .value)
        try container.encodeIfPresent(unit?.rawValue, forKey: .unit)
    }
}
