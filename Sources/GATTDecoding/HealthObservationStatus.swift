import BridgeFoundation

/// Measurement Status of a GHS health observation (uint16).
///
/// Bits: 0 invalid, 1 questionable, 2 not available, 3 calibration ongoing, 4 test data, 5 early estimate,
/// 6 manually entered, 7 setting (a device setting, not a measurement); 8–13 RFU; 14 threshold error,
/// 15 thresholding disabled.
/// - SeeAlso: Generic Health Sensor Service 1.0 §3 (Measurement Status); IEEE 11073-10206.
public struct HealthObservationStatus: OptionSet, Sendable, Hashable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let invalid = HealthObservationStatus(rawValue: 1 << 0)
    public static let questionable = HealthObservationStatus(rawValue: 1 << 1)
    public static let notAvailable = HealthObservationStatus(rawValue: 1 << 2)
    public static let calibrationOngoing = HealthObservationStatus(rawValue: 1 << 3)
    public static let testData = HealthObservationStatus(rawValue: 1 << 4)
    public static let earlyEstimate = HealthObservationStatus(rawValue: 1 << 5)
    public static let manuallyEntered = HealthObservationStatus(rawValue: 1 << 6)
    public static let setting = HealthObservationStatus(rawValue: 1 << 7)
    public static let thresholdError = HealthObservationStatus(rawValue: 1 << 14)
    public static let thresholdingDisabled = HealthObservationStatus(rawValue: 1 << 15)

    /// Readings that are not a final patient reading: never samples (like intermediate values).
    public static let notFinal: HealthObservationStatus = [.calibrationOngoing, .testData, .earlyEstimate, .setting]

    public static let bitNames: [String?] = [
        "invalid", "questionable", "not available", "calibration ongoing", "test data", "early estimate",
        "manually entered", "setting", nil, nil, nil, nil, nil, nil, "threshold error", "thresholding disabled",
    ]

    /// Names of the bits set, lowest first (RFU bits as `reserved bit N`).
    public var names: [String] { BitNames.names(of: UInt32(rawValue), Self.bitNames) }
    var field: JSONValue { BitNames.field(UInt32(rawValue), Self.bitNames) }
}
