public import BridgeFoundation

/// PLX Continuous Measurement (0x2A5F), notified by a pulse oximeter while it measures. It has no timestamp:
/// the receive time is the measurement time.
///
/// Flags: bit 0 SpO2PR-Fast, bit 1 SpO2PR-Slow, bit 2 Measurement Status, bit 3 Device and Sensor Status,
/// bit 4 Pulse Amplitude Index; bits 5–7 RFU (ignored). Fields: SpO2PR-Normal (SpO2 + PR, SFLOAT each), then
/// the gated fields in bit order.
/// - SeeAlso: Pulse Oximeter Service 1.0, GATT Specification Supplement §3.PLX Continuous Measurement;
///   `gatt-reference.md` §10.
public struct PLXContinuousMeasurement: GATTPayload, Hashable {
    public static let identifier = "plx-continuous-measurement"
    public static let name = "PLX Continuous Measurement"
    public static let source = PayloadSource.characteristic(.plxContinuousMeasurement)

    public var flags: UInt8
    /// SpO2PR-Normal: SpO2 in %.
    public var spo2: SFloat
    /// SpO2PR-Normal: pulse rate in bpm.
    public var pulseRate: SFloat
    public var spo2Fast: SFloat?
    public var pulseRateFast: SFloat?
    public var spo2Slow: SFloat?
    public var pulseRateSlow: SFloat?
    public var measurementStatus: PLXMeasurementStatus?
    public var deviceAndSensorStatus: PLXDeviceAndSensorStatus?
    /// Pulse Amplitude Index in %.
    public var pulseAmplitudeIndex: SFloat?

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        flags = try reader.read(UInt8.self, field: "Flags")
        spo2 = try reader.readSFloat(field: "SpO2PR-Normal SpO2")
        pulseRate = try reader.readSFloat(field: "SpO2PR-Normal PR")
        if flags & 0x01 != 0 {
            spo2Fast = try reader.readSFloat(field: "SpO2PR-Fast SpO2")
            pulseRateFast = try reader.readSFloat(field: "SpO2PR-Fast PR")
        }
        if flags & 0x02 != 0 {
            spo2Slow = try reader.readSFloat(field: "SpO2PR-Slow SpO2")
            pulseRateSlow = try reader.readSFloat(field: "SpO2PR-Slow PR")
        }
        if flags & 0x04 != 0 {
            measurementStatus = PLXMeasurementStatus(
                rawValue: try reader.read(UInt16.self, field: "Measurement Status")
            )
        }
        if flags & 0x08 != 0 {
            deviceAndSensorStatus = PLXDeviceAndSensorStatus(
                rawValue: try reader.readUInt24(field: "Device and Sensor Status")
            )
        }
        pulseAmplitudeIndex = flags & 0x10 != 0 ? try reader.readSFloat(field: "Pulse Amplitude Index") : nil
    }

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
        if let spo2Fast, let pulseRateFast {
            fields["spo2Fast"] = spo2Fast.field
            fields["pulseRateFast"] = pulseRateFast.field
        }
        if let spo2Slow, let pulseRateSlow {
            fields["spo2Slow"] = spo2Slow.field
            fields["pulseRateSlow"] = pulseRateSlow.field
        }
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
        if reservedFlags != 0 { fields["reservedFlags"] = .int(Int(reservedFlags)) }
        return fields
    }
}
