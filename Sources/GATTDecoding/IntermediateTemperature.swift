public import BridgeFoundation

/// Intermediate Temperature (0x2A1E), notified by a health thermometer while it is still measuring.
///
/// Same layout as Temperature Measurement (0x2A1C): flags uint8 (bit 0 Fahrenheit, bit 1 Time Stamp,
/// bit 2 Temperature Type, bits 3–7 RFU, ignored), Temperature FLOAT, Time Stamp, Temperature Type.
/// Never a final reading: it is shown, but never stored as a sample.
/// - SeeAlso: Health Thermometer Service 1.0, GATT Specification Supplement §3.Intermediate Temperature;
///   `gatt-reference.md` §6.1.
public struct IntermediateTemperature: GATTPayload, Hashable {
    public static let identifier = "intermediate-temperature"
    public static let name = "Intermediate Temperature"
    public static let source = PayloadSource.characteristic(.intermediateTemperature)

    private var layout: TemperatureMeasurementLayout

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        layout = try TemperatureMeasurementLayout(from: &reader)
    }

    public var flags: UInt8 { layout.flags }
    /// Temperature in ``temperatureUnit``, special values included.
    public var temperature: MedFloat { layout.temperature }
    public var timeStamp: DateTime? { layout.timeStamp }
    /// Measurement site, when the flags say it is present.
    public var temperatureType: TemperatureType? { layout.temperatureType }
    /// Bit 0: the temperature is in °F (else °C).
    public var isFahrenheit: Bool { layout.isFahrenheit }
    /// `°C` or `°F`.
    public var temperatureUnit: String { layout.unit }
    /// Flag bits reserved for future use that were set (they are ignored).
    public var reservedFlags: UInt8 { layout.reservedFlags }

    public var fields: JSONObject { layout.fields }
}
