public import BridgeFoundation

/// PLX Continuous Measurement (0x2A5F), notified by a pulse oximeter while it measures. It has no timestamp:
/// the receive time is the measurement time.
///
/// Flags: bit 0 SpO2PR-Fast, bit 1 SpO2PR-Slow, bit 2 Measurement Status, bit 3 Device and Sensor Status,
/// bit 4 Pulse Amplitude Index; bits 5–7 RFU (ignored). Fields: SpO2PR-Normal (SpO2 + PR, SFLOAT each), then
/// the gated fields in bit order.
/// - SeeAlso: Pulse Oximeter Service 1.0, GATT Specification Supplement §3.PLX Continuous Measurement;
///   `gatt-reference.md` §10.
@dynamicMemberLookup
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
    /// Measurement Status, Device and Sensor Status and Pulse Amplitude Index, each a member of this type too.
    public var status: PLXStatusFields

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
        status = try PLXStatusFields(from: &reader, flags: flags >> 2)
    }

    /// Flag bits reserved for future use that were set (they are ignored).
    public var reservedFlags: UInt8 { flags & 0xE0 }

    public subscript<Value>(dynamicMember field: KeyPath<PLXStatusFields, Value>) -> Value {
        status[keyPath: field]
    }

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
        status.append(to: &fields)
        if reservedFlags != 0 { fields["reservedFlags"] = .int(Int(reservedFlags)) }
        return fields
    }
}
