public import BridgeFoundation

/// PLX Features (0x2A60), read once from a pulse oximeter: which optional fields and procedures it supports.
///
/// Supported Features (uint16): bit 0 Measurement Status support present, bit 1 Device and Sensor Status
/// support present, bit 2 spot-check measurement storage, bit 3 spot-check timestamp, bit 4 SpO2PR-Fast,
/// bit 5 SpO2PR-Slow, bit 6 Pulse Amplitude Index, bit 7 multiple bonds; bits 8–15 RFU (ignored). Then
/// Measurement Status Support (uint16, if bit 0) and Device and Sensor Status Support (uint24, if bit 1).
/// - SeeAlso: Pulse Oximeter Service 1.0, GATT Specification Supplement §3.PLX Features;
///   `gatt-reference.md` §10.
public struct PLXFeatures: GATTPayload, Hashable {
    public static let identifier = "plx-features"
    public static let name = "PLX Features"
    public static let source = PayloadSource.characteristic(.plxFeatures)

    public var supportedFeatures: UInt16
    /// The Measurement Status bits the device can set.
    public var measurementStatusSupport: PLXMeasurementStatus?
    /// The Device and Sensor Status bits the device can set.
    public var deviceAndSensorStatusSupport: PLXDeviceAndSensorStatus?

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        supportedFeatures = try reader.read(UInt16.self, field: "Supported Features")
        if supportedFeatures & 0x0001 != 0 {
            measurementStatusSupport = PLXMeasurementStatus(
                rawValue: try reader.read(UInt16.self, field: "Measurement Status Support")
            )
        }
        if supportedFeatures & 0x0002 != 0 {
            deviceAndSensorStatusSupport = PLXDeviceAndSensorStatus(
                rawValue: try reader.readUInt24(field: "Device and Sensor Status Support")
            )
        }
    }

    public var supportsSpotCheckStorage: Bool { supportedFeatures & 0x0004 != 0 }
    public var supportsSpotCheckTimestamp: Bool { supportedFeatures & 0x0008 != 0 }
    /// Feature bits reserved for future use that were set (they are ignored).
    public var reservedFeatures: UInt16 { supportedFeatures & 0xFF00 }

    public static let featureNames: [String?] = [
        "measurement status support present", "device and sensor status support present",
        "spot-check measurement storage", "spot-check timestamp", "SpO2PR-Fast", "SpO2PR-Slow",
        "pulse amplitude index", "multiple bonds",
    ]

    public var fields: JSONObject {
        var fields: JSONObject = [
            "supportedFeatures": .int(Int(supportedFeatures)),
            "supportedFeatureNames": BitNames.field(UInt32(supportedFeatures & 0x00FF), Self.featureNames),
        ]
        if let measurementStatusSupport {
            fields["measurementStatusSupport"] = .int(Int(measurementStatusSupport.rawValue))
            fields["measurementStatusSupportBits"] = measurementStatusSupport.field
        }
        if let deviceAndSensorStatusSupport {
            fields["deviceAndSensorStatusSupport"] = .int(Int(deviceAndSensorStatusSupport.rawValue))
            fields["deviceAndSensorStatusSupportBits"] = deviceAndSensorStatusSupport.field
        }
        if reservedFeatures != 0 { fields["reservedFeatures"] = .int(Int(reservedFeatures)) }
        return fields
    }
}
