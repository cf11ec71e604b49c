public import BridgeFoundation

/// Blood Pressure Feature (0x2A49), read once from a blood-pressure monitor.
///
/// A uint16 bit field: bit 0 body movement detection, 1 cuff fit detection, 2 irregular pulse detection,
/// 3 pulse-rate range detection, 4 measurement position detection, 5 multiple bonds, 6 E2E-CRC, 7 User Data
/// Service, 8 User Facing Time (bits 6–8 are BLS 1.1), 9–15 RFU (ignored).
/// - SeeAlso: Blood Pressure Service 1.0/1.1, GATT Specification Supplement §3.Blood Pressure Feature;
///   `gatt-reference.md` §8.1.
public struct BloodPressureFeature: GATTPayload, Hashable {
    public static let identifier = "blood-pressure-feature"
    public static let name = "Blood Pressure Feature"
    public static let source = PayloadSource.characteristic(BluetoothUUID(0x2A49))

    /// The 16 feature bits as sent.
    public var rawValue: UInt16

    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        rawValue = try reader.read(UInt16.self, field: "Blood Pressure Feature")
    }

    public var bodyMovementDetectionSupported: Bool { rawValue & 1 << 0 != 0 }
    public var cuffFitDetectionSupported: Bool { rawValue & 1 << 1 != 0 }
    public var irregularPulseDetectionSupported: Bool { rawValue & 1 << 2 != 0 }
    public var pulseRateRangeDetectionSupported: Bool { rawValue & 1 << 3 != 0 }
    public var measurementPositionDetectionSupported: Bool { rawValue & 1 << 4 != 0 }
    public var multipleBondsSupported: Bool { rawValue & 1 << 5 != 0 }
    public var e2eCRCSupported: Bool { rawValue & 1 << 6 != 0 }
    public var userDataServiceSupported: Bool { rawValue & 1 << 7 != 0 }
    public var userFacingTimeSupported: Bool { rawValue & 1 << 8 != 0 }
    /// Bits reserved for future use that were set (they are ignored).
    public var reservedBits: UInt16 { rawValue & 0xFE00 }

    public var fields: JSONObject {
        var fields: JSONObject = [
            "features": .int(Int(rawValue)),
            "bodyMovementDetectionSupported": .bool(bodyMovementDetectionSupported),
            "cuffFitDetectionSupported": .bool(cuffFitDetectionSupported),
            "irregularPulseDetectionSupported": .bool(irregularPulseDetectionSupported),
            "pulseRateRangeDetectionSupported": .bool(pulseRateRangeDetectionSupported),
            "measurementPositionDetectionSupported": .bool(measurementPositionDetectionSupported),
            "multipleBondsSupported": .bool(multipleBondsSupported),
            "e2eCRCSupported": .bool(e2eCRCSupported),
            "userDataServiceSupported": .bool(userDataServiceSupported),
            "userFacingTimeSupported": .bool(userFacingTimeSupported),
        ]
        if reservedBits != 0 { fields["reservedBits"] = .int(Int(reservedBits)) }
        return fields
    }
}
