public import BridgeFoundation

/// PLX Spot-check Measurement (0x2A5E), indicated by a pulse oximeter for a single (final or stored) reading.
///
/// Flags: bit 0 Timestamp, bit 1 Measurement Status, bit 2 Device and Sensor Status, bit 3 Pulse Amplitude
/// Index, bit 4 Device Clock Not Set (the timestamp is meaningless); bits 5–7 RFU (ignored).
/// Fields: SpO2 (SFLOAT %), Pulse Rate (SFLOAT bpm), then the gated fields in bit order.
/// - SeeAlso: Pulse Oximeter Service 1.0, GATT Specification Supplement §3.PLX Spot-check Measurement;
///   `gatt-reference.md` §10.
public struct PLXSpotCheckMeasurement: GATTPayload, Hashable {
    public static let identifier = "plx-spot-check-measurement"
    public static let name = "PLX Spot-check Measurement"
    public static let source = PayloadSource.characteristic(.plxSpotCheckMeasurement)

    public var flags: UInt8
    /// SpO2 in %.
    public var spo2: SFloat
    /// Pulse rate in beats per minute.
    public var pulseRate: SFloat
    public var timeStamp: DateTime?
    public var measurementStatus: PLXMeasurementStatus?
    public var deviceAndSensorStatus: PLXDeviceAndSensorStatus?
    /// Pulse Amplitude Index in %.
    public var pulseAmplitudeIndex: SFloat?

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        flags = try reader.read(UInt8.self, field: "Flags")
        spo2 = try reader.readSFloat(field: "SpO2")
        pulseRate = try reader.readSFloat(field: "Pulse Rate")
        timeStamp = flags & 0x01 != 0 ? try reader.readDateTime() : nil
        if flags & 0x02 != 0 {
            measurementStatus = PLXMeasurementStatus(
                rawValue: try reader.read(UInt16.self, field: "Measurement Status")
            )
        }
        if flags & 0x04 != 0 {
            deviceAndSensorStatus = PLXDeviceAndSensorStatus(
                rawValue: try reader.readUInt24(field: "Device and Sensor Status")
            )
        }
        pulseAmplitudeIndex = flags & 0x08 != 0 ? try reader.readSFloat(field: "Pulse Amplitude Index") : nil
    }

    /// Flag bit 4: the device's clock was never set, so ``timeStamp`` means nothing.
    public var isDeviceClockNotSet: Bool { flags & 0x10 != 0 }
    /// Flag bits reserved for future use that were set (they are ignored).
    public var reservedFlags: UInt8 { flags & 0xE0 }

    public var fields: JSONObject {
        var fields: JSONObject = [
            "flags": .int(Int(flags)),
            "spo2": spo2.field,
            "spo2Unit": .string("%"),
            "pulseRate": pulseRate.field,
            "pulseRateUnit": .string("bpm"),
        ]
        if let timeStamp { fields["timeStamp"] = timeStamp.field }
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
        fields["deviceClockNotSet"] = .bool(isDeviceClockNotSet)
        if reservedFlags != 0 { fields["reservedFlags"] = .int(Int(reservedFlags)) }
        return fields
    }
}
