public import BridgeFoundation

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
