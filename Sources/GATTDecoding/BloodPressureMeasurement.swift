public import BridgeFoundation

/// Blood Pressure Measurement (0x2A35), indicated by a blood-pressure monitor: a final reading.
///
/// Flags uint8: bit 0 kPa (else mmHg; applies to systolic, diastolic and mean arterial pressure), bit 1 Time
/// Stamp, bit 2 Pulse Rate, bit 3 User ID, bit 4 Measurement Status, bits 5–7 RFU (ignored).
/// Pressures and pulse rate are SFLOATs (MAP is often NaN). Values are not range-checked here. Intermediate Cuff
/// Pressure (0x2A36) has the same layout and is read by this decoder.
/// - SeeAlso: Blood Pressure Service 1.0, GATT Specification Supplement §3.Blood Pressure Measurement;
///   `gatt-reference.md` §8.1.
public struct BloodPressureMeasurement: GATTPayload, Hashable {
    public static let identifier = "blood-pressure-measurement"
    public static let name = "Blood Pressure Measurement"
    public static let source = PayloadSource.characteristic(.bloodPressureMeasurement)

    public var flags: UInt8
    /// Systolic pressure in ``pressureUnit``.
    public var systolic: SFloat
    /// Diastolic pressure in ``pressureUnit``.
    public var diastolic: SFloat
    /// Mean arterial pressure in ``pressureUnit``.
    public var meanArterialPressure: SFloat
    /// Device wall-clock time; year 0 means unknown.
    public var timeStamp: DateTime?
    /// Pulse rate in beats per minute.
    public var pulseRate: SFloat?
    /// User index; 0xFF means an unknown user.
    public var userID: UInt8?
    public var measurementStatus: BloodPressureMeasurementStatus?

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        try self.init(from: &reader, pressureNames: Self.pressureNames)
    }

    /// The pressure fields' names in errors, then in ``fields``, in the order they are sent.
    static let pressureNames = [
        ("Systolic", "systolic"), ("Diastolic", "diastolic"), ("Mean Arterial Pressure", "meanArterialPressure"),
    ]

    /// Reads the layout, naming the three pressure fields `pressureNames` in errors (Intermediate Cuff Pressure
    /// names them after its own use of them).
    init(from reader: inout ByteReader, pressureNames: [(String, String)]) throws(GATTDecodingError) {
        flags = try reader.read(UInt8.self, field: "Flags")
        systolic = try reader.readSFloat(field: pressureNames[0].0)
        diastolic = try reader.readSFloat(field: pressureNames[1].0)
        meanArterialPressure = try reader.readSFloat(field: pressureNames[2].0)
        timeStamp = flags & 0x02 != 0 ? try reader.readDateTime() : nil
        pulseRate = flags & 0x04 != 0 ? try reader.readSFloat(field: "Pulse Rate") : nil
        userID = flags & 0x08 != 0 ? try reader.read(UInt8.self, field: "User ID") : nil
        measurementStatus =
            flags & 0x10 != 0
            ? BloodPressureMeasurementStatus(rawValue: try reader.read(UInt16.self, field: "Measurement Status"))
            : nil
    }

    /// Bit 0: pressures are in kPa (else mmHg).
    public var isKilopascal: Bool { flags & 0x01 != 0 }
    /// `mmHg` or `kPa`.
    public var pressureUnit: String { isKilopascal ? "kPa" : "mmHg" }
    /// Flag bits reserved for future use that were set (they are ignored).
    public var reservedFlags: UInt8 { flags & 0xE0 }

    public var fields: JSONObject { fields(pressureNames: Self.pressureNames) }

    /// The fields, with the three pressures under `pressureNames`' keys.
    func fields(pressureNames: [(String, String)]) -> JSONObject {
        var fields: JSONObject = ["flags": .int(Int(flags))]
        for ((_, key), pressure) in zip(pressureNames, [systolic, diastolic, meanArterialPressure]) {
            fields[key] = pressure.field
        }
        fields["pressureUnit"] = .string(pressureUnit)
        if let timeStamp { fields["timeStamp"] = timeStamp.field }
        if let pulseRate {
            fields["pulseRate"] = pulseRate.field
            fields["pulseRateUnit"] = .string("bpm")
        }
        if let userID { fields["userID"] = userID == 0xFF ? .string("unknown") : .int(Int(userID)) }
        if let measurementStatus { fields["measurementStatus"] = .object(measurementStatus.fields) }
        if reservedFlags != 0 { fields["reservedFlags"] = .int(Int(reservedFlags)) }
        return fields
    }
}
