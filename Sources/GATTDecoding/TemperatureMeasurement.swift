public import BridgeFoundation

/// Temperature Measurement (0x2A1C), indicated by a health thermometer: a final reading.
///
/// Flags uint8: bit 0 Fahrenheit, bit 1 Time Stamp, bit 2 Temperature Type, bits 3–7 RFU (ignored).
/// Temperature is an IEEE-11073 FLOAT (NaN when the reading is invalid). The Temperature Type comes either
/// here (bit 2) or from the static Temperature Type characteristic (0x2A1D), never both. Intermediate
/// Temperature (0x2A1E) has the same layout and is read by this decoder.
/// - SeeAlso: Health Thermometer Service 1.0, GATT Specification Supplement §3.Temperature Measurement;
///   `gatt-reference.md` §6.1.
public struct TemperatureMeasurement: GATTPayload, Hashable {
    public static let identifier = "temperature-measurement"
    public static let name = "Temperature Measurement"
    public static let source = PayloadSource.characteristic(.temperatureMeasurement)

    public var flags: UInt8
    /// Temperature in ``temperatureUnit``, special values included.
    public var temperature: MedFloat
    public var timeStamp: DateTime?
    /// Measurement site, when the flags say it is present.
    public var temperatureType: TemperatureType?

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        flags = try reader.read(UInt8.self, field: "Flags")
        temperature = try reader.readMedFloat(field: "Temperature")
        timeStamp = flags & 0x02 != 0 ? try reader.readDateTime() : nil
        temperatureType =
            flags & 0x04 != 0 ? TemperatureType(rawValue: try reader.read(UInt8.self, field: "Temperature Type")) : nil
    }

    /// Bit 0: the temperature is in °F (else °C).
    public var isFahrenheit: Bool { flags & 0x01 != 0 }
    /// `°C` or `°F`.
    public var temperatureUnit: String { isFahrenheit ? "°F" : "°C" }
    /// Flag bits reserved for future use that were set (they are ignored).
    public var reservedFlags: UInt8 { flags & 0xF8 }

    public var fields: JSONObject {
        var fields: JSONObject = [
            "flags": .int(Int(flags)),
            "temperature": temperature.field,
            "temperatureUnit": .string(temperatureUnit),
        ]
        if let timeStamp { fields["timeStamp"] = timeStamp.field }
        if let temperatureType { fields["temperatureType"] = temperatureType.field }
        if reservedFlags != 0 { fields["reservedFlags"] = .int(Int(reservedFlags)) }
        return fields
    }
}
