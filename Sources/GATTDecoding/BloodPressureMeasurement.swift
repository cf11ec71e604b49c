public import BridgeFoundation

/// Blood Pressure Measurement (0x2A35), indicated by a blood-pressure monitor: a final reading.
///
/// Flags uint8: bit 0 kPa (else mmHg; applies to systolic, diastolic and mean arterial pressure), bit 1 Time
/// Stamp, bit 2 Pulse Rate, bit 3 User ID, bit 4 Measurement Status, bits 5–7 RFU (ignored).
/// Pressures and pulse rate are SFLOATs (MAP is often NaN). Values are not range-checked here.
/// - SeeAlso: Blood Pressure Service 1.0, GATT Specification Supplement §3.Blood Pressure Measurement;
///   `gatt-reference.md` §8.1.
public struct BloodPressureMeasurement: GATTPayload, Hashable {
    public static let identifier = "blood-pressure-measurement"
    public static let name = "Blood Pressure Measurement"
    public static let source = PayloadSource.characteristic(.bloodPressureMeasurement)

    private var layout: BloodPressureMeasurementLayout

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        layout = try BloodPressureMeasurementLayout(from: &reader, cuffPressure: false)
    }

    public var flags: UInt8 { layout.flags }
    /// Systolic pressure in ``pressureUnit``.
    public var systolic: SFloat { layout.first }
    /// Diastolic pressure in ``pressureUnit``.
    public var diastolic: SFloat { layout.second }
    /// Mean arterial pressure in ``pressureUnit``.
    public var meanArterialPressure: SFloat { layout.third }
    /// Device wall-clock time; year 0 means unknown.
    public var timeStamp: DateTime? { layout.timeStamp }
    /// Pulse rate in beats per minute.
    public var pulseRate: SFloat? { layout.pulseRate }
    /// User index; 0xFF means an unknown user.
    public var userID: UInt8? { layout.userID }
    public var measurementStatus: BloodPressureMeasurementStatus? { layout.measurementStatus }
    /// Bit 0: pressures are in kPa (else mmHg).
    public var isKilopascal: Bool { layout.isKilopascal }
    /// `mmHg` or `kPa`.
    public var pressureUnit: String { layout.unit }
    /// Flag bits reserved for future use that were set (they are ignored).
    public var reservedFlags: UInt8 { layout.reservedFlags }

    public var fields: JSONObject {
        var fields: JSONObject = [
            "flags": .int(Int(flags)),
            "systolic": systolic.field,
            "diastolic": diastolic.field,
            "meanArterialPressure": meanArterialPressure.field,
            "pressureUnit": .string(pressureUnit),
        ]
        layout.appendTrailingFields(to: &fields)
        return fields
    }
}
