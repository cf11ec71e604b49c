public import BridgeFoundation

/// PLX Spot-check Measurement (0x2A5E), indicated by a pulse oximeter for a single (final or stored) reading.
///
/// Flags: bit 0 Timestamp, bit 1 Measurement Status, bit 2 Device and Sensor Status, bit 3 Pulse Amplitude
/// Index, bit 4 Device Clock Not Set (the timestamp is meaningless); bits 5–7 RFU (ignored).
/// Fields: SpO2 (SFLOAT %), Pulse Rate (SFLOAT bpm), then the gated fields in bit order.
/// - SeeAlso: Pulse Oximeter Service 1.0, GATT Specification Supplement §3.PLX Spot-check Measurement;
///   `gatt-reference.md` §10.
@dynamicMemberLookup
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
    /// Measurement Status, Device and Sensor Status and Pulse Amplitude Index, each a member of this type too.
    public var status: PLXStatusFields

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        flags = try reader.read(UInt8.self, field: "Flags")
        spo2 = try reader.readSFloat(field: "SpO2")
        pulseRate = try reader.readSFloat(field: "Pulse Rate")
        timeStamp = flags & 0x01 != 0 ? try reader.readDateTime() : nil
        status = try PLXStatusFields(from: &reader, flags: flags >> 1)
    }

    /// Flag bit 4: the device's clock was never set, so ``timeStamp`` means nothing.
    public var isDeviceClockNotSet: Bool { flags & 0x10 != 0 }
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
        if let timeStamp { fields["timeStamp"] = timeStamp.field }
        status.append(to: &fields)
        fields["deviceClockNotSet"] = .bool(isDeviceClockNotSet)
        if reservedFlags != 0 { fields["reservedFlags"] = .int(Int(reservedFlags)) }
        return fields
    }
}
