public import BridgeFoundation

/// Body Sensor Location (0x2A38): where a heart-rate sensor is worn.
///
/// uint8: 0 other, 1 chest, 2 wrist, 3 finger, 4 hand, 5 ear lobe, 6 foot; 7–255 reserved (shown as
/// `reserved`, still round-trip).
/// - SeeAlso: Heart Rate Service 1.0, GATT Specification Supplement §3.Body Sensor Location;
///   `gatt-reference.md` §7.2.
public struct BodySensorLocation: GATTPayload, RawRepresentable, Hashable, CustomStringConvertible {
    public static let identifier = "body-sensor-location"
    public static let name = "Body Sensor Location"
    public static let source = PayloadSource.characteristic(.bodySensorLocation)

    public var rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        rawValue = try reader.read(UInt8.self, field: "Body Sensor Location")
    }

    public static let other = BodySensorLocation(rawValue: 0)
    public static let chest = BodySensorLocation(rawValue: 1)
    public static let wrist = BodySensorLocation(rawValue: 2)
    public static let finger = BodySensorLocation(rawValue: 3)
    public static let hand = BodySensorLocation(rawValue: 4)
    public static let earLobe = BodySensorLocation(rawValue: 5)
    public static let foot = BodySensorLocation(rawValue: 6)

    /// The location's name (`chest`, `wrist`, …), or nil for a reserved code.
    public var locationName: String? {
        switch rawValue {
        case 0: "other"
        case 1: "chest"
        case 2: "wrist"
        case 3: "finger"
        case 4: "hand"
        case 5: "earLobe"
        case 6: "foot"
        default: nil
        }
    }

    public var isReserved: Bool { locationName == nil }

    /// The location's name, or `reserved`.
    public var description: String { locationName ?? "reserved" }

    public var fields: JSONObject {
        ["code": .int(Int(rawValue)), "location": .string(description)]
    }
}
