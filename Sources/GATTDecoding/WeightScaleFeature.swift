public import BridgeFoundation

/// Weight Scale Feature (0x2A9E), read once from a weight scale.
///
/// A uint32 bit field: bits 0–2 Time Stamp / Multiple Users / BMI supported, bits 3–6 weight resolution,
/// bits 7–9 height resolution, bits 10–31 RFU (ignored). The resolution is the scale's *precision*; the
/// Weight Measurement's unit stays fixed at 0.005 kg / 0.01 lb whatever is advertised here.
/// - SeeAlso: Weight Scale Service 1.0, GATT Specification Supplement §3.Weight Scale Feature;
///   `gatt-reference.md` §4.2.
public struct WeightScaleFeature: GATTPayload, Hashable {
    public static let identifier = "weight-scale-feature"
    public static let name = "Weight Scale Feature"
    public static let source = PayloadSource.characteristic(.weightScaleFeature)

    /// The 32 feature bits as sent.
    public var rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        rawValue = try reader.read(UInt32.self, field: "Weight Scale Feature")
    }

    public var timeStampSupported: Bool { rawValue & 0x01 != 0 }
    public var multipleUsersSupported: Bool { rawValue & 0x02 != 0 }
    public var bmiSupported: Bool { rawValue & 0x04 != 0 }
    /// Bits 3–6.
    public var weightResolution: WeightResolution { WeightResolution(code: UInt8(rawValue >> 3 & 0x0F)) }
    /// Bits 7–9.
    public var heightResolution: HeightResolution { HeightResolution(code: UInt8(rawValue >> 7 & 0x07)) }
    /// Bits reserved for future use that were set (they are ignored).
    public var reservedBits: UInt32 { rawValue & 0xFFFF_FC00 }

    public var fields: JSONObject {
        var fields: JSONObject = [
            "features": .int(Int(rawValue)),
            "timeStampSupported": .bool(timeStampSupported),
            "multipleUsersSupported": .bool(multipleUsersSupported),
            "bmiSupported": .bool(bmiSupported),
            "weightResolution": weightResolution.field,
            "heightResolution": heightResolution.field,
        ]
        if reservedBits != 0 { fields["reservedBits"] = .int(Int(reservedBits)) }
        return fields
    }
}

/// The weight resolution code of Weight Scale Feature bits 3–6 (also Body Composition Feature bits 11–14).
///
/// 0 unspecified; 1 = 0.5 kg / 1 lb … 7 = 0.005 kg / 0.01 lb; 8–15 reserved.
/// - SeeAlso: `gatt-reference.md` §4.2.
public struct WeightResolution: Sendable, Hashable {
    /// The 4-bit code.
    public var code: UInt8

    public init(code: UInt8) {
        self.code = code
    }

    /// Resolution in kilograms, nil when unspecified or reserved.
    public var kilograms: Double? {
        switch code {
        case 1: 0.5
        case 2: 0.2
        case 3: 0.1
        case 4: 0.05
        case 5: 0.02
        case 6: 0.01
        case 7: 0.005
        default: nil
        }
    }

    /// Resolution in pounds, nil when unspecified or reserved.
    public var pounds: Double? {
        switch code {
        case 1: 1
        case 2: 0.5
        case 3: 0.2
        case 4: 0.1
        case 5: 0.05
        case 6: 0.02
        case 7: 0.01
        default: nil
        }
    }

    public var isReserved: Bool { code > 7 }

    /// `{"kg": 0.1, "lb": 0.2}`, `"unspecified"` or `"reserved"`.
    public var field: JSONValue {
        if let kilograms, let pounds { return .object(["kg": .double(kilograms), "lb": .double(pounds)]) }
        return .string(code == 0 ? "unspecified" : "reserved")
    }
}

/// The height resolution code of Weight Scale Feature bits 7–9 (also Body Composition Feature bits 15–17).
///
/// 0 unspecified; 1 = 0.01 m / 1 in, 2 = 0.005 m / 0.5 in, 3 = 0.001 m / 0.1 in; 4–7 reserved.
/// - SeeAlso: `gatt-reference.md` §4.2.
public struct HeightResolution: Sendable, Hashable {
    /// The 3-bit code.
    public var code: UInt8

    public init(code: UInt8) {
        self.code = code
    }

    /// Resolution in metres, nil when unspecified or reserved.
    public var metres: Double? {
        switch code {
        case 1: 0.01
        case 2: 0.005
        case 3: 0.001
        default: nil
        }
    }

    /// Resolution in inches, nil when unspecified or reserved.
    public var inches: Double? {
        switch code {
        case 1: 1
        case 2: 0.5
        case 3: 0.1
        default: nil
        }
    }

    public var isReserved: Bool { code > 3 }

    /// `{"m": 0.001, "in": 0.1}`, `"unspecified"` or `"reserved"`.
    public var field: JSONValue {
        if let metres, let inches { return .object(["m": .double(metres), "in": .double(inches)]) }
        return .string(code == 0 ? "unspecified" : "reserved")
    }
}
