public import BridgeFoundation

/// Xiaomi Mi Body Composition Scale 2 (XMTZC02HM / XMTZC05HM) advertisement: the Service Data under 0x181B.
/// Not the Body Composition Measurement layout, although it shares the service UUID.
///
/// Layout (13 octets): control 0 (bit 0 unit lb, bit 1 set in every weighing frame, bit 2 weighing mode:
/// object — a thing, not a person — when set; theengs/decoder `XMTZC05HM` "weighing_mode"), control 1 (bit 1 impedance valid, bit 5 stabilised, bit 6
/// unit jin, bit 7 weight removed / empty load), Date Time, impedance uint16 Ω (meaningful only when valid),
/// weight uint16 (kg × 200, lb × 100 or jin × 100). Bits are tested with explicit per-byte masks: the
/// wiecosystem notes number the 16 control bits MSB-first ("bit 7 lb, 9 jin, 10 stabilised, 14 impedance").
/// - SeeAlso: openScale `MiScale2Handler`, xiaomi-ble; `gatt-reference.md` §12.2.
public struct MiBodyCompositionScale2: GATTPayload, Hashable {
    public static let identifier = "mi-body-composition-scale-2"
    public static let name = "Xiaomi Mi Body Composition Scale 2"
    public static let source = PayloadSource.serviceData(.bodyCompositionService)

    public var control0: UInt8
    public var control1: UInt8
    public var timeStamp: DateTime
    /// Impedance in Ω; meaningful only when ``isImpedanceValid``.
    public var impedance: UInt16
    /// Raw weight: 0.005 kg, 0.01 lb or 0.01 jin per unit.
    public var rawWeight: UInt16

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        control0 = try reader.read(UInt8.self, field: "Control 0")
        control1 = try reader.read(UInt8.self, field: "Control 1")
        timeStamp = try reader.readDateTime()
        impedance = try reader.read(UInt16.self, field: "Impedance")
        rawWeight = try reader.read(UInt16.self, field: "Weight")
    }

    public var weightUnit: MiScaleV1.WeightUnit {
        if control0 & 0x01 != 0 { return .pound }
        if control1 & 0x40 != 0 { return .jin }
        return .kilogram
    }
    /// Control 0 bit 2: object mode (the scale weighs a thing, not a person).
    public var isObjectMode: Bool { control0 & 0x04 != 0 }
    /// Control 1 bit 1.
    public var isImpedanceValid: Bool { control1 & 0x02 != 0 }
    /// Control 1 bit 5.
    public var isStabilised: Bool { control1 & 0x20 != 0 }
    /// Control 1 bit 7: weight removed / empty load.
    public var isLoadRemoved: Bool { control1 & 0x80 != 0 }
    /// Weight in ``weightUnit``.
    public var weight: Double { weightUnit == .kilogram ? Double(rawWeight) / 200 : Double(rawWeight) / 100 }
    /// Stabilised, load not removed, weight > 0: the reading to record.
    public var isFinal: Bool { isStabilised && !isLoadRemoved && rawWeight > 0 }

    public var fields: JSONObject {
        [
            "control0": .int(Int(control0)),
            "control1": .int(Int(control1)),
            "stabilised": .bool(isStabilised),
            "loadRemoved": .bool(isLoadRemoved),
            "impedanceValid": .bool(isImpedanceValid),
            "mode": .string(isObjectMode ? "object" : "person"),
            "timeStamp": timeStamp.field,
            "impedance": .int(Int(impedance)),
            "impedanceUnit": .string("Ohm"),
            "weight": .double(weight),
            "weightUnit": .string(weightUnit.rawValue),
        ]
    }
}
