public import BridgeFoundation

/// Battery Level (0x2A19) of the Battery Service: charge in percent, 0–100.
///
/// Values above 100 are outside the specification; they decode (devices send them) and are flagged
/// ``isOutOfRange`` so the caller can drop or clamp them and log it.
/// - SeeAlso: Battery Service 1.0, GATT Specification Supplement §3.Battery Level; `gatt-reference.md` §11.
public struct BatteryLevel: BatteryReporting, Hashable {
    public static let identifier = "battery-level"
    public static let name = "Battery Level"
    public static let source = PayloadSource.characteristic(.batteryLevel)

    /// Percent as sent.
    public var level: UInt8

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        level = try reader.read(UInt8.self, field: "Battery Level")
    }

    /// Above 100 %: not a valid battery level.
    public var isOutOfRange: Bool { level > 100 }

    public var batteryPercent: Int? { isOutOfRange ? nil : Int(level) }

    public var fields: JSONObject {
        var fields: JSONObject = ["level": .int(Int(level)), "unit": .string("%")]
        if isOutOfRange { fields["outOfRange"] = .bool(true) }
        return fields
    }
}
