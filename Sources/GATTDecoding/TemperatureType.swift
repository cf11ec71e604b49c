public import BridgeFoundation

/// Temperature Type (0x2A1D): where on the body a thermometer measures. Exactly one octet.
///
/// Also the per-measurement Temperature Type field of Temperature Measurement (0x2A1C) and Intermediate
/// Temperature (0x2A1E). An open set: 0 and 10–255 are reserved but still round-trip.
/// - SeeAlso: Health Thermometer Service 1.0, GATT Specification Supplement §3.Temperature Type;
///   `gatt-reference.md` §6.2.
public struct TemperatureType: GATTPayload, RawRepresentable, Hashable, CustomStringConvertible {
    public static let identifier = "temperature-type"
    public static let name = "Temperature Type"
    public static let source = PayloadSource.characteristic(.temperatureType)

    public var rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// Decodes the characteristic value, which must be exactly one octet.
    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        rawValue = try reader.read(UInt8.self, field: "Temperature Type")
        guard reader.remaining == 0 else {
            throw reader.error(.unexpectedLength(expected: "exactly 1 byte", actual: reader.bytes.count))
        }
    }

    public static let armpit = TemperatureType(rawValue: 1)
    public static let body = TemperatureType(rawValue: 2)
    public static let ear = TemperatureType(rawValue: 3)
    public static let finger = TemperatureType(rawValue: 4)
    public static let gastrointestinalTract = TemperatureType(rawValue: 5)
    public static let mouth = TemperatureType(rawValue: 6)
    public static let rectum = TemperatureType(rawValue: 7)
    public static let toe = TemperatureType(rawValue: 8)
    public static let tympanum = TemperatureType(rawValue: 9)

    /// The site's name (`mouth`, `ear`, …), or nil for a reserved code.
    public var siteName: String? {
        switch rawValue {
        case 1: "armpit"
        case 2: "body"
        case 3: "ear"
        case 4: "finger"
        case 5: "gastrointestinalTract"
        case 6: "mouth"
        case 7: "rectum"
        case 8: "toe"
        case 9: "tympanum"
        default: nil
        }
    }

    public var isReserved: Bool { siteName == nil }

    /// The site's name, or `reserved`.
    public var description: String { siteName ?? "reserved" }

    /// The field form used inside measurements: the site's name, or `"reserved"`.
    public var field: JSONValue { .string(description) }

    public var fields: JSONObject {
        ["code": .int(Int(rawValue)), "temperatureType": field]
    }
}
