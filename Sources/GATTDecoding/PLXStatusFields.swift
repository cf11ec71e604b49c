import BridgeFoundation

/// The fields both PLX measurements end with: Measurement Status (uint16), Device and Sensor Status (uint24) and
/// Pulse Amplitude Index (SFLOAT %), each present when its flag bit is set.
/// - SeeAlso: Pulse Oximeter Service 1.0; `gatt-reference.md` §10.
public struct PLXStatusFields: Sendable, Hashable {
    public var measurementStatus: PLXMeasurementStatus?
    public var deviceAndSensorStatus: PLXDeviceAndSensorStatus?
    /// Pulse Amplitude Index in %.
    public var pulseAmplitudeIndex: SFloat?

    /// Reads the fields whose bits are set in `flags`, the measurement's flags shifted so that bit 0 gates the
    /// Measurement Status.
    init(from reader: inout ByteReader, flags: UInt8) throws(GATTDecodingError) {
        if flags & 0x01 != 0 {
            measurementStatus = PLXMeasurementStatus(rawValue: try reader.read(field: "Measurement Status"))
        }
        if flags & 0x02 != 0 {
            deviceAndSensorStatus = PLXDeviceAndSensorStatus(
                rawValue: try reader.readUInt24(field: "Device and Sensor Status")
            )
        }
        pulseAmplitudeIndex = flags & 0x04 != 0 ? try reader.readSFloat(field: "Pulse Amplitude Index") : nil
    }

    /// Adds the fields present, in spec order.
    func append(to fields: inout JSONObject) {
        if let measurementStatus {
            fields["measurementStatus"] = .int(Int(measurementStatus.rawValue))
            fields["measurementStatusBits"] = measurementStatus.field
        }
        if let deviceAndSensorStatus {
            fields["deviceAndSensorStatus"] = .int(Int(deviceAndSensorStatus.rawValue))
            fields["deviceAndSensorStatusBits"] = deviceAndSensorStatus.field
        }
        if let pulseAmplitudeIndex {
            fields["pulseAmplitudeIndex"] = pulseAmplitudeIndex.field
            fields["pulseAmplitudeIndexUnit"] = .string("%")
        }
    }
}
