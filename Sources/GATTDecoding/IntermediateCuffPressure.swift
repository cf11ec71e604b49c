public import BridgeFoundation

/// Intermediate Cuff Pressure (0x2A36), notified by a blood-pressure monitor while the cuff inflates or
/// deflates.
///
/// Same layout and flags as Blood Pressure Measurement (0x2A35), and read by its decoder: every field of the
/// ``record`` is a member of this type too. The current cuff pressure is in the Systolic field; the Diastolic and
/// Mean Arterial Pressure fields are unused (the spec says NaN, devices often send 0) and are shown only as
/// `diastolicUnused` / `meanArterialPressureUnused`. Live progress, never a final reading: it is never stored as
/// a sample.
/// - SeeAlso: Blood Pressure Service 1.0, GATT Specification Supplement §3.Intermediate Cuff Pressure;
///   `gatt-reference.md` §8.2.
@dynamicMemberLookup
public struct IntermediateCuffPressure: GATTPayload, Hashable {
    public static let identifier = "intermediate-cuff-pressure"
    public static let name = "Intermediate Cuff Pressure"
    public static let source = PayloadSource.characteristic(.intermediateCuffPressure)

    /// The pressure fields' names in errors and in ``fields``.
    static let pressureNames = [
        ("Current Cuff Pressure", "cuffPressure"), ("Diastolic (unused)", "diastolicUnused"),
        ("Mean Arterial Pressure (unused)", "meanArterialPressureUnused"),
    ]

    /// The record as sent, in the Blood Pressure Measurement layout.
    public var record: BloodPressureMeasurement

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        record = try BloodPressureMeasurement(from: &reader, pressureNames: Self.pressureNames)
    }

    public subscript<Value>(dynamicMember field: KeyPath<BloodPressureMeasurement, Value>) -> Value {
        record[keyPath: field]
    }

    /// Current cuff pressure in ``BloodPressureMeasurement/pressureUnit`` (sent in the Systolic field).
    public var cuffPressure: SFloat { record.systolic }
    /// The unused Diastolic field, as sent.
    public var unusedDiastolic: SFloat { record.diastolic }
    /// The unused Mean Arterial Pressure field, as sent.
    public var unusedMeanArterialPressure: SFloat { record.meanArterialPressure }

    public var fields: JSONObject { record.fields(pressureNames: Self.pressureNames) }
}
