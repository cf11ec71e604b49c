import BridgeFoundation

/// The layout Temperature Measurement (0x2A1C) and Intermediate Temperature (0x2A1E) share.
///
/// Flags uint8: bit 0 Fahrenheit, bit 1 Time Stamp, bit 2 Temperature Type, bits 3–7 RFU (ignored).
/// Fields: Temperature (IEEE-11073 FLOAT), Time Stamp (Date Time), Temperature Type (uint8).
/// - SeeAlso: `gatt-reference.md` §6.1.
struct TemperatureMeasurementLayout: Sendable, Hashable {
    var flags: UInt8
    var temperature: MedFloat
    var timeStamp: DateTime?
    var temperatureType: TemperatureType?

    init(from reader: inout ByteReader) throws(GATTDecodingError) {
        flags = try reader.read(UInt8.self, field: "Flags")
        temperature = try reader.readMedFloat(field: "Temperature")
        timeStamp = flags & 0x02 != 0 ? try reader.readDateTime() : nil
        temperatureType =
            flags & 0x04 != 0 ? TemperatureType(rawValue: try reader.read(UInt8.self, field: "Temperature Type")) : nil
    }

    var isFahrenheit: Bool { flags & 0x01 != 0 }
    var reservedFlags: UInt8 { flags & 0xF8 }
    var unit: String { isFahrenheit ? "°F" : "°C" }

    var fields: JSONObject {
        var fields: JSONObject = [
            "flags": .int(Int(flags)),
            "temperature": temperature.field,
            "temperatureUnit": .string(unit),
        ]
        if let timeStamp { fields["timeStamp"] = timeStamp.field }
        if let temperatureType { fields["temperatureType"] = temperatureType.field }
        if reservedFlags != 0 { fields["reservedFlags"] = .int(Int(reservedFlags)) }
        return fields
    }
}
