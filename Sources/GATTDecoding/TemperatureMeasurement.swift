public import BridgeFoundation

/// Temperature Measurement (0x2A1C), indicated by a health thermometer: a final reading.
///
/// Flags uint8: bit 0 Fahrenheit, bit 1 Time Stamp, bit 2 Temperature Type, bits 3–7 RFU (ignored).
/// Temperature is an IEEE-11073 FLOAT (NaN when the reading is invalid). The Temperature Type comes either
/// here (bit 2) or from the static Temperature Type characteristic (0x2A1D), never both.
/// - SeeAlso: Health Thermometer Service 1.0, GATT Specification Supplement §3.Temperature Measurement;
///   `gatt-reference.md` §6.1.
public struct TemperatureMeasurement: GATTPayload, Hashable {
    public static let identifier = "temperature-measurement"
    public static let name = "Temperature Measurement"
    public static let source = PayloadSource.characteristic(.temperatureMeasurement)

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
