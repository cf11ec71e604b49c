public import BridgeFoundation

/// Observation Schedule Changed (0x2BF1) of the Generic Health Sensor service: the sensor's new schedule for one
/// observation type, indicated when it changes. The same layout is the value of the Observation Schedule
/// descriptor (0x2910) the sensor keeps per observation type on Health Sensor Features.
///
/// Layout: Observation Type (uint32 MDC code), Measurement Period (FLOAT, seconds: how long one observation
/// takes), Update Interval (FLOAT, seconds: how often the sensor makes one).
/// - SeeAlso: Generic Health Sensor Service 1.0 §3 (Observation Schedule Changed; Observation Schedule
///   descriptor).
public struct ObservationScheduleChanged: GATTPayload, Hashable {
    public static let identifier = "observation-schedule-changed"
    public static let name = "Observation Schedule Changed"
    public static let source = PayloadSource.characteristic(.observationScheduleChanged)

    /// MDC code of the observation type the schedule is for.
    public var observationType: UInt32
    /// Seconds one observation takes.
    public var measurementPeriod: MedFloat
    /// Seconds between observations.
    public var updateInterval: MedFloat

    public init(observationType: UInt32, measurementPeriod: MedFloat, updateInterval: MedFloat) {
        self.observationType = observationType
        self.measurementPeriod = measurementPeriod
        self.updateInterval = updateInterval
    }

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        observationType = try reader.read(UInt32.self, field: "Observation Type")
        measurementPeriod = try reader.readMedFloat(field: "Measurement Period")
        updateInterval = try reader.readMedFloat(field: "Update Interval")
    }

    /// The value as the sensor sends it (for simulators and round-trip tests).
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        for word in [observationType, measurementPeriod.rawValue, updateInterval.rawValue] {
            out += (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) }
        }
        return out
    }

    public var fields: JSONObject {
        [
            "observationType": .int(Int(observationType)),
            "measurementPeriod": measurementPeriod.field,
            "updateInterval": updateInterval.field,
        ]
    }

}
