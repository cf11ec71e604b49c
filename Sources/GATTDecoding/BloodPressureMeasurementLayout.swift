public import BridgeFoundation

/// The layout Blood Pressure Measurement (0x2A35) and Intermediate Cuff Pressure (0x2A36) share.
///
/// Flags uint8: bit 0 kPa (else mmHg), bit 1 Time Stamp, bit 2 Pulse Rate, bit 3 User ID, bit 4 Measurement
/// Status, bits 5–7 RFU (ignored). Fields: three SFLOAT pressures, Time Stamp, Pulse Rate SFLOAT, User ID
/// uint8, Measurement Status uint16.
/// - SeeAlso: `gatt-reference.md` §8.1.
struct BloodPressureMeasurementLayout: Sendable, Hashable {
    var flags: UInt8
    var first: SFloat
    var second: SFloat
    var third: SFloat
    var timeStamp: DateTime?
    var pulseRate: SFloat?
    var userID: UInt8?
    var measurementStatus: BloodPressureMeasurementStatus?

    /// `cuffPressure`: name the pressure fields as Intermediate Cuff Pressure does, in errors.
    init(from reader: inout ByteReader, cuffPressure: Bool) throws(GATTDecodingError) {
        flags = try reader.read(UInt8.self, field: "Flags")
        first = try reader.readSFloat(field: cuffPressure ? "Current Cuff Pressure" : "Systolic")
        second = try reader.readSFloat(field: cuffPressure ? "Diastolic (unused)" : "Diastolic")
        third = try reader.readSFloat(
            field: cuffPressure ? "Mean Arterial Pressure (unused)" : "Mean Arterial Pressure"
        )
        timeStamp = flags & 0x02 != 0 ? try reader.readDateTime() : nil
        pulseRate = flags & 0x04 != 0 ? try reader.readSFloat(field: "Pulse Rate") : nil
        userID = flags & 0x08 != 0 ? try reader.read(UInt8.self, field: "User ID") : nil
        measurementStatus =
            flags & 0x10 != 0
            ? BloodPressureMeasurementStatus(rawValue: try reader.read(UInt16.self, field: "Measurement Status"))
            : nil
    }

    var isKilopascal: Bool { flags & 0x01 != 0 }
    var reservedFlags: UInt8 { flags & 0xE0 }
    var unit: String { isKilopascal ? "kPa" : "mmHg" }

    /// The fields after the pressures, in spec order.
    func appendTrailingFields(to fields: inout JSONObject) {
        if let timeStamp { fields["timeStamp"] = timeStamp.field }
        if let pulseRate {
            fields["pulseRate"] = pulseRate.field
            fields["pulseRateUnit"] = .string("bpm")
        }
        if let userID { fields["userID"] = userID == 0xFF ? .string("unknown") : .int(Int(userID)) }
        if let measurementStatus { fields["measurementStatus"] = .object(measurementStatus.fields) }
        if reservedFlags != 0 { fields["reservedFlags"] = .int(Int(reservedFlags)) }
    }
}

/// Measurement Status of a blood-pressure reading (uint16).
///
/// Bit 0 body movement, bit 1 cuff too loose, bit 2 irregular pulse, bits 3–4 pulse-rate range (0 within,
/// 1 above the upper limit, 2 below the lower limit, 3 reserved), bit 5 improper measurement position,
/// bits 6–15 RFU (ignored).
/// - SeeAlso: `gatt-reference.md` §8.1.
public struct BloodPressureMeasurementStatus: RawRepresentable, Sendable, Hashable {
    /// Bits 3–4.
    public enum PulseRateRange: String, Sendable, Hashable, CaseIterable {
        case withinRange
        case aboveUpperLimit
        case belowLowerLimit
        case reserved
    }

    public var rawValue: UInt16

    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    public var bodyMovement: Bool { rawValue & 0x0001 != 0 }
    public var cuffTooLoose: Bool { rawValue & 0x0002 != 0 }
    public var irregularPulse: Bool { rawValue & 0x0004 != 0 }
    public var pulseRateRange: PulseRateRange {
        switch rawValue >> 3 & 0x03 {
        case 0: .withinRange
        case 1: .aboveUpperLimit
        case 2: .belowLowerLimit
        default: .reserved
        }
    }
    public var improperPosition: Bool { rawValue & 0x0020 != 0 }
    /// Bits reserved for future use that were set (they are ignored).
    public var reservedBits: UInt16 { rawValue & 0xFFC0 }

    /// The conditions reported, by name, in bit order (`bodyMovement`, `pulseRateAboveUpperLimit`, …);
    /// empty when the reading had no problem.
    public var conditions: [String] {
        var names: [String] = []
        if bodyMovement { names.append("bodyMovement") }
        if cuffTooLoose { names.append("cuffTooLoose") }
        if irregularPulse { names.append("irregularPulse") }
        switch pulseRateRange {
        case .withinRange: break
        case .aboveUpperLimit: names.append("pulseRateAboveUpperLimit")
        case .belowLowerLimit: names.append("pulseRateBelowLowerLimit")
        case .reserved: names.append("pulseRateRangeReserved")
        }
        if improperPosition { names.append("improperPosition") }
        return names
    }

    public var fields: JSONObject {
        var fields: JSONObject = [
            "value": .int(Int(rawValue)),
            "bodyMovement": .bool(bodyMovement),
            "cuffTooLoose": .bool(cuffTooLoose),
            "irregularPulse": .bool(irregularPulse),
            "pulseRateRange": .string(pulseRateRange.rawValue),
            "improperPosition": .bool(improperPosition),
        ]
        if reservedBits != 0 { fields["reservedBits"] = .int(Int(reservedBits)) }
        return fields
    }
}
