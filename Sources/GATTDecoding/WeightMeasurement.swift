public import BridgeFoundation

/// Weight Measurement (0x2A9D), indicated by a weight scale.
///
/// Flags: bit 0 imperial units, bit 1 Time Stamp, bit 2 User ID, bit 3 BMI and Height; bits 4–7 RFU (ignored).
/// Weight is fixed at 0.005 kg or 0.01 lb per unit whatever the scale's advertised resolution;
/// `0xFFFF` means the measurement was unsuccessful.
/// - SeeAlso: Weight Scale Service 1.0, GATT Specification Supplement §3.Weight Measurement;
///   `gatt-reference.md` §4.1.
public struct WeightMeasurement: GATTPayload, Hashable {
    public static let identifier = "weight-measurement"
    public static let name = "Weight Measurement"
    public static let source = PayloadSource.characteristic(.weightMeasurement)

    public var flags: UInt8
    /// Raw weight in 0.005 kg (SI) or 0.01 lb (imperial) units; `0xFFFF` when unsuccessful.
    public var rawWeight: UInt16
    public var timeStamp: DateTime?
    /// User index; 0xFF means an unknown user.
    public var userID: UInt8?
    /// Raw BMI in 0.1 kg/m².
    public var rawBMI: UInt16?
    /// Raw height in 0.001 m (SI) or 0.1 in (imperial).
    public var rawHeight: UInt16?

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        flags = try reader.read(UInt8.self, field: "Flags")
        rawWeight = try reader.read(UInt16.self, field: "Weight")
        timeStamp = flags & 0x02 != 0 ? try reader.readDateTime() : nil
        userID = flags & 0x04 != 0 ? try reader.read(UInt8.self, field: "User ID") : nil
        if flags & 0x08 != 0 {
            rawBMI = try reader.read(UInt16.self, field: "BMI")
            rawHeight = try reader.read(UInt16.self, field: "Height")
        }
    }

    public var isImperial: Bool { flags & 0x01 != 0 }
    /// Weight 0xFFFF: the scale could not measure.
    public var isUnsuccessful: Bool { rawWeight == 0xFFFF }
    /// Flag bits reserved for future use that were set (they are ignored).
    public var reservedFlags: UInt8 { flags & 0xF0 }

    /// Weight in the transmitted unit (kg or lb), nil when unsuccessful.
    public var weight: Double? {
        guard !isUnsuccessful else { return nil }
        return isImperial ? Double(rawWeight) / 100 : Double(rawWeight) * 5 / 1000
    }
    public var weightUnit: String { isImperial ? "lb" : "kg" }
    /// BMI in kg/m².
    public var bmi: Double? { rawBMI.map { Double($0) / 10 } }
    /// Height in the transmitted unit (m or in).
    public var height: Double? { rawHeight.map { isImperial ? Double($0) / 10 : Double($0) / 1000 } }
    public var heightUnit: String { isImperial ? "in" : "m" }

    public var fields: JSONObject {
        var fields: JSONObject = [
            "flags": .int(Int(flags)),
            "units": .string(isImperial ? "imperial" : "SI"),
        ]
        if let weight {
            fields["weight"] = .double(weight)
            fields["weightUnit"] = .string(weightUnit)
        } else {
            fields["weight"] = .string("unsuccessful")
        }
        if let timeStamp { fields["timeStamp"] = timeStamp.field }
        if let userID { fields["userID"] = userID == 0xFF ? .string("unknown") : .int(Int(userID)) }
        if let bmi { fields["bmi"] = .double(bmi) }
        if let height {
            fields["height"] = .double(height)
            fields["heightUnit"] = .string(heightUnit)
        }
        if reservedFlags != 0 { fields["reservedFlags"] = .int(Int(reservedFlags)) }
        return fields
    }
}
