public import BridgeFoundation

/// Body Composition Feature (0x2A9B), read once from a body-composition scale.
///
/// A uint32 bit field: bits 0–10 say which optional fields the scale supports (Time Stamp, Multiple Users,
/// Basal Metabolism, Muscle Percentage, Muscle Mass, Fat Free Mass, Soft Lean Mass, Body Water Mass,
/// Impedance, Weight, Height), bits 11–14 the mass resolution (codes as Weight Scale Feature bits 3–6),
/// bits 15–17 the height resolution (codes as Weight Scale Feature bits 7–9), bits 18–31 RFU (ignored).
/// - SeeAlso: Body Composition Service 1.0, GATT Specification Supplement §3.Body Composition Feature;
///   `gatt-reference.md` §5.2.
public struct BodyCompositionFeature: GATTPayload, Hashable {
    public static let identifier = "body-composition-feature"
    public static let name = "Body Composition Feature"
    public static let source = PayloadSource.characteristic(BluetoothUUID(0x2A9B))

    /// The 32 feature bits as sent.
    public var rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        rawValue = try reader.read(UInt32.self, field: "Body Composition Feature")
    }

    public var timeStampSupported: Bool { rawValue & 1 << 0 != 0 }
    public var multipleUsersSupported: Bool { rawValue & 1 << 1 != 0 }
    public var basalMetabolismSupported: Bool { rawValue & 1 << 2 != 0 }
    public var musclePercentageSupported: Bool { rawValue & 1 << 3 != 0 }
    public var muscleMassSupported: Bool { rawValue & 1 << 4 != 0 }
    public var fatFreeMassSupported: Bool { rawValue & 1 << 5 != 0 }
    public var softLeanMassSupported: Bool { rawValue & 1 << 6 != 0 }
    public var bodyWaterMassSupported: Bool { rawValue & 1 << 7 != 0 }
    public var impedanceSupported: Bool { rawValue & 1 << 8 != 0 }
    public var weightSupported: Bool { rawValue & 1 << 9 != 0 }
    public var heightSupported: Bool { rawValue & 1 << 10 != 0 }
    /// Bits 11–14.
    public var massResolution: WeightResolution { WeightResolution(code: UInt8(rawValue >> 11 & 0x0F)) }
    /// Bits 15–17.
    public var heightResolution: HeightResolution { HeightResolution(code: UInt8(rawValue >> 15 & 0x07)) }
    /// Bits reserved for future use that were set (they are ignored).
    public var reservedBits: UInt32 { rawValue & 0xFFFC_0000 }

    public var fields: JSONObject {
        var fields: JSONObject = [
            "features": .int(Int(rawValue)),
            "timeStampSupported": .bool(timeStampSupported),
            "multipleUsersSupported": .bool(multipleUsersSupported),
            "basalMetabolismSupported": .bool(basalMetabolismSupported),
            "musclePercentageSupported": .bool(musclePercentageSupported),
            "muscleMassSupported": .bool(muscleMassSupported),
            "fatFreeMassSupported": .bool(fatFreeMassSupported),
            "softLeanMassSupported": .bool(softLeanMassSupported),
            "bodyWaterMassSupported": .bool(bodyWaterMassSupported),
            "impedanceSupported": .bool(impedanceSupported),
            "weightSupported": .bool(weightSupported),
            "heightSupported": .bool(heightSupported),
            "massResolution": massResolution.field,
            "heightResolution": heightResolution.field,
        ]
        if reservedBits != 0 { fields["reservedBits"] = .int(Int(reservedBits)) }
        return fields
    }
}
