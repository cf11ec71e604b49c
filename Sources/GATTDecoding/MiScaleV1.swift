public import BridgeFoundation

/// Xiaomi Mi Smart Scale v1 (XMTZC01HM / XMTZC04HM) advertisement: the Service Data under 0x181D. Not the
/// Weight Measurement layout, although it shares the service UUID.
///
/// Layout (10 octets): control (bit 0 unit lb, bit 4 unit jin, bit 5 stabilised, bit 6 object mode — the
/// scale weighs a thing, not a person —, bit 7 weight removed; bits 1–3 carry nothing the public decoders use
/// and are kept in ``control``), weight uint16 (kg × 200, lb × 100 or jin × 100), Date Time
/// (often 1970 when never set). lb wins when both unit bits are set (xiaomi-ble, openScale). A final reading is
/// stabilised, not removed, and weight > 0.
/// - SeeAlso: openScale `MiScaleHandler`, xiaomi-ble `_parse_scale_v1`; `gatt-reference.md` §12.1.
public struct MiScaleV1: GATTPayload, Hashable {
    public static let identifier = "mi-scale-v1"
    public static let name = "Xiaomi Mi Scale v1"
    public static let source = PayloadSource.serviceData(.weightScaleService)

    /// Weight unit selected on the scale.
    public enum WeightUnit: String, Sendable, Hashable {
        case kilogram = "kg"
        case pound = "lb"
        case jin
    }

    public var control: UInt8
    /// Raw weight: 0.005 kg, 0.01 lb or 0.01 jin per unit.
    public var rawWeight: UInt16
    public var timeStamp: DateTime

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        control = try reader.read(UInt8.self, field: "Control")
        rawWeight = try reader.read(UInt16.self, field: "Weight")
        timeStamp = try reader.readDateTime()
    }

    public var weightUnit: WeightUnit {
        if control & 0x01 != 0 { return .pound }
        if control & 0x10 != 0 { return .jin }
        return .kilogram
    }
    /// Control bit 5: the reading has settled.
    public var isStabilised: Bool { control & 0x20 != 0 }
    /// Control bit 6: object mode (a parcel, a suitcase): the weight is not the user's body mass.
    public var isObjectMode: Bool { control & 0x40 != 0 }
    /// Control bit 7: the person stepped off; the frame repeats the last reading.
    public var isLoadRemoved: Bool { control & 0x80 != 0 }
    /// Weight in ``weightUnit``.
    public var weight: Double { weightUnit == .kilogram ? Double(rawWeight) / 200 : Double(rawWeight) / 100 }
    /// Stabilised, load not removed, weight > 0: the reading to record.
    public var isFinal: Bool { isStabilised && !isLoadRemoved && rawWeight > 0 }

    public var fields: JSONObject {
        [
            "control": .int(Int(control)),
            "stabilised": .bool(isStabilised),
            "loadRemoved": .bool(isLoadRemoved),
            "mode": .string(isObjectMode ? "object" : "person"),
            "weight": .double(weight),
            "weightUnit": .string(weightUnit.rawValue),
            "timeStamp": timeStamp.field,
        ]
    }
}
