public import BridgeFoundation

/// Body Composition Measurement (0x2A9C), indicated by a body-composition scale.
///
/// Flags are **uint16**: bit 0 imperial units, bits 1–11 gate the optional fields (in this order: Time Stamp,
/// User ID, Basal Metabolism, Muscle Percentage, Muscle Mass, Fat Free Mass, Soft Lean Mass, Body Water Mass,
/// Impedance, Weight, Height), bit 12 Multiple Packet Measurement, bits 13–15 RFU (ignored).
/// Mass fields are 0.005 kg (SI) or 0.01 lb (imperial) per unit; Basal Metabolism is in kJ; Impedance in
/// 0.1 Ω. Body Fat `0xFFFF` means the measurement was unsuccessful.
///
/// A value too long for one ATT packet is split over consecutive indications with bit 12 set, each with its
/// own flags and Body Fat; ``merged(with:)`` joins them. A packet with bit 12 set is never final on its own.
/// - SeeAlso: Body Composition Service 1.0, GATT Specification Supplement §3.Body Composition Measurement;
///   `gatt-reference.md` §5.1.
public struct BodyCompositionMeasurement: GATTPayload, Hashable {
    public static let identifier = "body-composition-measurement"
    public static let name = "Body Composition Measurement"
    public static let source = PayloadSource.characteristic(.bodyCompositionMeasurement)

    public var flags: UInt16
    /// Raw body fat in 0.1 %; `0xFFFF` when unsuccessful.
    public var rawBodyFatPercentage: UInt16
    public var timeStamp: DateTime?
    /// User index; 0xFF means an unknown user.
    public var userID: UInt8?
    /// Basal metabolism in kJ.
    public var basalMetabolism: UInt16?
    /// Raw muscle percentage in 0.1 %.
    public var rawMusclePercentage: UInt16?
    /// Raw muscle mass in the mass unit (0.005 kg or 0.01 lb).
    public var rawMuscleMass: UInt16?
    /// Raw fat-free mass in the mass unit.
    public var rawFatFreeMass: UInt16?
    /// Raw soft lean mass in the mass unit.
    public var rawSoftLeanMass: UInt16?
    /// Raw body water mass in the mass unit (a mass, not a percentage).
    public var rawBodyWaterMass: UInt16?
    /// Raw impedance in 0.1 Ω.
    public var rawImpedance: UInt16?
    /// Raw weight in the mass unit.
    public var rawWeight: UInt16?
    /// Raw height in 0.001 m (SI) or 0.1 in (imperial).
    public var rawHeight: UInt16?

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        flags = try reader.read(UInt16.self, field: "Flags")
        rawBodyFatPercentage = try reader.read(UInt16.self, field: "Body Fat Percentage")
        timeStamp = flags & 0x0002 != 0 ? try reader.readDateTime() : nil
        userID = flags & 0x0004 != 0 ? try reader.read(UInt8.self, field: "User ID") : nil
        basalMetabolism = flags & 0x0008 != 0 ? try reader.read(UInt16.self, field: "Basal Metabolism") : nil
        rawMusclePercentage = flags & 0x0010 != 0 ? try reader.read(UInt16.self, field: "Muscle Percentage") : nil
        rawMuscleMass = flags & 0x0020 != 0 ? try reader.read(UInt16.self, field: "Muscle Mass") : nil
        rawFatFreeMass = flags & 0x0040 != 0 ? try reader.read(UInt16.self, field: "Fat Free Mass") : nil
        rawSoftLeanMass = flags & 0x0080 != 0 ? try reader.read(UInt16.self, field: "Soft Lean Mass") : nil
        rawBodyWaterMass = flags & 0x0100 != 0 ? try reader.read(UInt16.self, field: "Body Water Mass") : nil
        rawImpedance = flags & 0x0200 != 0 ? try reader.read(UInt16.self, field: "Impedance") : nil
        rawWeight = flags & 0x0400 != 0 ? try reader.read(UInt16.self, field: "Weight") : nil
        rawHeight = flags & 0x0800 != 0 ? try reader.read(UInt16.self, field: "Height") : nil
    }

    public var isImperial: Bool { flags & 0x0001 != 0 }
    /// Bit 12: this packet is one part of a measurement split over several indications.
    public var isMultiplePacket: Bool { flags & 0x1000 != 0 }
    /// Body Fat 0xFFFF: the scale could not measure.
    public var isUnsuccessful: Bool { rawBodyFatPercentage == 0xFFFF }
    /// Flag bits reserved for future use that were set (they are ignored).
    public var reservedFlags: UInt16 { flags & 0xE000 }

    /// Body fat in %, nil when unsuccessful.
    public var bodyFatPercentage: Double? { isUnsuccessful ? nil : Double(rawBodyFatPercentage) / 10 }
    /// Muscle percentage in %.
    public var musclePercentage: Double? { rawMusclePercentage.map { Double($0) / 10 } }
    /// Muscle mass in ``massUnit``.
    public var muscleMass: Double? { rawMuscleMass.map(mass) }
    /// Fat-free mass in ``massUnit``.
    public var fatFreeMass: Double? { rawFatFreeMass.map(mass) }
    /// Soft lean mass in ``massUnit``.
    public var softLeanMass: Double? { rawSoftLeanMass.map(mass) }
    /// Body water mass in ``massUnit``.
    public var bodyWaterMass: Double? { rawBodyWaterMass.map(mass) }
    /// Impedance in Ω.
    public var impedance: Double? { rawImpedance.map { Double($0) / 10 } }
    /// Weight in ``massUnit``.
    public var weight: Double? { rawWeight.map(mass) }
    /// Height in ``heightUnit``.
    public var height: Double? { rawHeight.map { isImperial ? Double($0) / 10 : Double($0) / 1000 } }
    public var massUnit: String { isImperial ? "lb" : "kg" }
    public var heightUnit: String { isImperial ? "in" : "m" }

    private func mass(_ raw: UInt16) -> Double {
        isImperial ? Double(raw) / 100 : Double(raw) * 5 / 1000
    }

    /// Joins the packets of a multiple-packet measurement field by field: this (first) packet supplies the
    /// flags' unit, Body Fat, Time Stamp and User ID; `continuation` adds the fields this one lacks.
    /// The result has bit 12 cleared, so it is a complete measurement.
    /// - Returns: nil when the packets disagree on the unit bit (their mass fields cannot be joined).
    public func merged(with continuation: BodyCompositionMeasurement) -> BodyCompositionMeasurement? {
        guard isImperial == continuation.isImperial else { return nil }
        var result = self
        result.flags = (flags | continuation.flags & 0x0FFE) & ~0x1000
        result.timeStamp = timeStamp ?? continuation.timeStamp
        result.userID = userID ?? continuation.userID
        result.basalMetabolism = basalMetabolism ?? continuation.basalMetabolism
        result.rawMusclePercentage = rawMusclePercentage ?? continuation.rawMusclePercentage
        result.rawMuscleMass = rawMuscleMass ?? continuation.rawMuscleMass
        result.rawFatFreeMass = rawFatFreeMass ?? continuation.rawFatFreeMass
        result.rawSoftLeanMass = rawSoftLeanMass ?? continuation.rawSoftLeanMass
        result.rawBodyWaterMass = rawBodyWaterMass ?? continuation.rawBodyWaterMass
        result.rawImpedance = rawImpedance ?? continuation.rawImpedance
        result.rawWeight = rawWeight ?? continuation.rawWeight
        result.rawHeight = rawHeight ?? continuation.rawHeight
        return result
    }

    public var fields: JSONObject {
        var fields: JSONObject = [
            "flags": .int(Int(flags)),
            "units": .string(isImperial ? "imperial" : "SI"),
            "multiplePacket": .bool(isMultiplePacket),
        ]
        fields["bodyFatPercentage"] = bodyFatPercentage.map(JSONValue.double) ?? .string("unsuccessful")
        if let timeStamp { fields["timeStamp"] = timeStamp.field }
        if let userID { fields["userID"] = userID == 0xFF ? .string("unknown") : .int(Int(userID)) }
        if let basalMetabolism {
            fields["basalMetabolism"] = .int(Int(basalMetabolism))
            fields["basalMetabolismUnit"] = .string("kJ")
        }
        if let musclePercentage { fields["musclePercentage"] = .double(musclePercentage) }
        // The mass unit is shown once, after the first mass field present.
        for (key, value) in [
            ("muscleMass", muscleMass), ("fatFreeMass", fatFreeMass), ("softLeanMass", softLeanMass),
            ("bodyWaterMass", bodyWaterMass),
        ] {
            guard let value else { continue }
            fields[key] = .double(value)
            if fields["massUnit"] == nil { fields["massUnit"] = .string(massUnit) }
        }
        if let impedance {
            fields["impedance"] = .double(impedance)
            fields["impedanceUnit"] = .string("Ohm")
        }
        if let weight {
            fields["weight"] = .double(weight)
            if fields["massUnit"] == nil { fields["massUnit"] = .string(massUnit) }
        }
        if let height {
            fields["height"] = .double(height)
            fields["heightUnit"] = .string(heightUnit)
        }
        if reservedFlags != 0 { fields["reservedFlags"] = .int(Int(reservedFlags)) }
        return fields
    }
}
