import BridgeFoundation

/// PLX Measurement Status (uint16), shared by the spot-check and continuous measurements and PLX Features.
///
/// Bits 0–4 are RFU. A reading flagged ongoing, early estimate, demonstration, testing, unavailable,
/// questionable or invalid is not clinical data.
/// - SeeAlso: Pulse Oximeter Service 1.0; `gatt-reference.md` §10.
public struct PLXMeasurementStatus: OptionSet, Sendable, Hashable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let measurementOngoing = PLXMeasurementStatus(rawValue: 1 << 5)
    public static let earlyEstimatedData = PLXMeasurementStatus(rawValue: 1 << 6)
    public static let validatedData = PLXMeasurementStatus(rawValue: 1 << 7)
    public static let fullyQualifiedData = PLXMeasurementStatus(rawValue: 1 << 8)
    public static let dataFromMeasurementStorage = PLXMeasurementStatus(rawValue: 1 << 9)
    public static let dataForDemonstration = PLXMeasurementStatus(rawValue: 1 << 10)
    public static let dataForTesting = PLXMeasurementStatus(rawValue: 1 << 11)
    public static let calibrationOngoing = PLXMeasurementStatus(rawValue: 1 << 12)
    public static let measurementUnavailable = PLXMeasurementStatus(rawValue: 1 << 13)
    public static let questionableMeasurementDetected = PLXMeasurementStatus(rawValue: 1 << 14)
    public static let invalidMeasurementDetected = PLXMeasurementStatus(rawValue: 1 << 15)

    /// The bits that make a reading unfit to store as clinical data.
    public static let notClinical: PLXMeasurementStatus = [
        .measurementOngoing, .earlyEstimatedData, .dataForDemonstration, .dataForTesting, .measurementUnavailable,
        .questionableMeasurementDetected, .invalidMeasurementDetected,
    ]

    public static let bitNames: [String?] = [
        nil, nil, nil, nil, nil, "measurement ongoing", "early estimated data", "validated data",
        "fully qualified data", "data from measurement storage", "data for demonstration", "data for testing",
        "calibration ongoing", "measurement unavailable", "questionable measurement detected",
        "invalid measurement detected",
    ]

    /// Names of the bits set, lowest first (RFU bits as `reserved bit N`).
    public var names: [String] { BitNames.names(of: UInt32(rawValue), Self.bitNames) }
    var field: JSONValue { BitNames.field(UInt32(rawValue), Self.bitNames) }
}

/// PLX Device and Sensor Status (uint24 on the wire; bits 16–23 RFU).
/// - SeeAlso: Pulse Oximeter Service 1.0; `gatt-reference.md` §10.
public struct PLXDeviceAndSensorStatus: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let extendedDisplayUpdateOngoing = PLXDeviceAndSensorStatus(rawValue: 1 << 0)
    public static let equipmentMalfunctionDetected = PLXDeviceAndSensorStatus(rawValue: 1 << 1)
    public static let signalProcessingIrregularityDetected = PLXDeviceAndSensorStatus(rawValue: 1 << 2)
    public static let inadequateSignalDetected = PLXDeviceAndSensorStatus(rawValue: 1 << 3)
    public static let poorSignalDetected = PLXDeviceAndSensorStatus(rawValue: 1 << 4)
    public static let lowPerfusionDetected = PLXDeviceAndSensorStatus(rawValue: 1 << 5)
    public static let erraticSignalDetected = PLXDeviceAndSensorStatus(rawValue: 1 << 6)
    public static let nonpulsatileSignalDetected = PLXDeviceAndSensorStatus(rawValue: 1 << 7)
    public static let questionablePulseDetected = PLXDeviceAndSensorStatus(rawValue: 1 << 8)
    public static let signalAnalysisOngoing = PLXDeviceAndSensorStatus(rawValue: 1 << 9)
    public static let sensorInterferenceDetected = PLXDeviceAndSensorStatus(rawValue: 1 << 10)
    public static let sensorUnconnectedToUser = PLXDeviceAndSensorStatus(rawValue: 1 << 11)
    public static let unknownSensorConnected = PLXDeviceAndSensorStatus(rawValue: 1 << 12)
    public static let sensorDisplaced = PLXDeviceAndSensorStatus(rawValue: 1 << 13)
    public static let sensorMalfunctioning = PLXDeviceAndSensorStatus(rawValue: 1 << 14)
    public static let sensorDisconnected = PLXDeviceAndSensorStatus(rawValue: 1 << 15)

    public static let bitNames: [String?] = [
        "extended display update ongoing", "equipment malfunction detected",
        "signal processing irregularity detected", "inadequate signal detected", "poor signal detected",
        "low perfusion detected", "erratic signal detected", "nonpulsatile signal detected",
        "questionable pulse detected", "signal analysis ongoing", "sensor interference detected",
        "sensor unconnected to user", "unknown sensor connected", "sensor displaced", "sensor malfunctioning",
        "sensor disconnected",
    ]

    /// Names of the bits set, lowest first (RFU bits as `reserved bit N`).
    public var names: [String] { BitNames.names(of: rawValue, Self.bitNames) }
    var field: JSONValue { BitNames.field(rawValue, Self.bitNames) }
}
