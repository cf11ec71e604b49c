public import BridgeFoundation

/// Intermediate Temperature (0x2A1E), notified by a health thermometer while it is still measuring.
///
/// Same layout as Temperature Measurement (0x2A1C), and read by its decoder: every field of the ``record`` is a
/// member of this type too. Never a final reading: it is shown, but never stored as a sample.
/// - SeeAlso: Health Thermometer Service 1.0, GATT Specification Supplement §3.Intermediate Temperature;
///   `gatt-reference.md` §6.1.
@dynamicMemberLookup
public struct IntermediateTemperature: GATTPayload, Hashable {
    public static let identifier = "intermediate-temperature"
    public static let name = "Intermediate Temperature"
    public static let source = PayloadSource.characteristic(.intermediateTemperature)

    /// The reading as sent, in the Temperature Measurement layout.
    public var record: TemperatureMeasurement

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        record = try TemperatureMeasurement(from: &reader)
    }

    public subscript<Value>(dynamicMember field: KeyPath<TemperatureMeasurement, Value>) -> Value {
        record[keyPath: field]
    }

    public var fields: JSONObject { record.fields }
}
