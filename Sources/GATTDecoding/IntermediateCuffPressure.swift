public import BridgeFoundation

/// Intermediate Cuff Pressure (0x2A36), notified by a blood-pressure monitor while the cuff inflates or
/// deflates.
///
/// Same layout and flags as Blood Pressure Measurement (0x2A35). The current cuff pressure is in the
/// Systolic field; the Diastolic and Mean Arterial Pressure fields are unused (the spec says NaN, devices
/// often send 0) and are shown only as `diastolicUnused` / `meanArterialPressureUnused`. Live progress,
/// never a final reading: it is never stored as a sample.
/// - SeeAlso: Blood Pressure Service 1.0, GATT Specification Supplement §3.Intermediate Cuff Pressure;
///   `gatt-reference.md` §8.2.
public struct IntermediateCuffPressure: GATTPayload, Hashable {
    public static let identifier = "intermediate-cuff-pressure"
    public static let name = "Intermediate Cuff Pressure"
    public static let source = PayloadSource.characteristic(.intermediateCuffPressure)

    private var layout: BloodPressureMeasurementLayout

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        layout = try BloodPressureMeasurementLayout(from: &reader, cuffPressure: true)
    }

    public var flags: UInt8 { layout.flags }
    /// Current cuff pressure in ``pressureUnit`` (sent in the Systolic field).
    public var cuffPressure: SFloat { layout.first }
    /// The unused Diastolic field, as sent.
    public var unusedDiastolic: SFloat { layout.second }
    /// The unused Mean Arterial Pressure field, as sent.
    public var unusedMeanArterialPressure: SFloat { layout.third }
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
            "cuffPressure": cuffPressure.field,
            "diastolicUnused": unusedDiastolic.field,
            "meanArterialPressureUnused": unusedMeanArterialPressure.field,
            "pressureUnit": .string(pressureUnit),
        ]
        layout.appendTrailingFields(to: &fields)
        return fields
    }
}
