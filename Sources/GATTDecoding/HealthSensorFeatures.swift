public import BridgeFoundation

/// Health Sensor Features (0x2BF3) of the Generic Health Sensor service: which observation types the sensor
/// reports.
///
/// Layout as read here: Features (uint8; bit 0 the device specialisations list follows), then the Supported
/// Observation Types list (count uint8, uint32 MDC codes). The rest (the device specialisations) is kept as
/// bytes, not interpreted: CareBridge only logs this characteristic.
/// - SeeAlso: Generic Health Sensor Service 1.0 §3 (Health Sensor Features).
public struct HealthSensorFeatures: GATTPayload, Hashable {
    public static let identifier = "health-sensor-features"
    public static let name = "Health Sensor Features"
    public static let source = PayloadSource.characteristic(.healthSensorFeatures)

    public var features: UInt8
    /// MDC codes of the observation types the sensor supports.
    public var observationTypes: [UInt32]
    /// Octets after the observation types (device specialisations), undecoded.
    public var rest: [UInt8]

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        features = try reader.read(UInt8.self, field: "Features")
        observationTypes = try HealthObservation.codes(&reader, field: "Supported Observation Types")
        rest = reader.readRemaining()
    }

    public var fields: JSONObject {
        var fields: JSONObject = [
            "features": .int(Int(features)),
            "observationTypes": .array(observationTypes.map { .int(Int($0)) }),
        ]
        if !rest.isEmpty { fields["rest"] = .string(Hex.string(rest)) }
        return fields
    }

    public static var fieldsMayHoldSpecialValues: Bool { false }
}
