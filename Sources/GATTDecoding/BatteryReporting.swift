/// A payload that reports the device's battery charge: an `info` characteristic whose decoder conforms is stored
/// as the device's battery level instead of being logged only.
public protocol BatteryReporting: GATTPayload {
    /// Percent, 0–100; nil when the value is outside the specification (it is then logged, not stored).
    var batteryPercent: Int? { get }
}
