public import Foundation

/// A device's battery charge as it reported it (Battery Level, 0x2A19), with when the bridge read it: what the care
/// team's Devices screen shows, so a scale that stops sending because its battery died is seen as such.
public struct BatteryReading: Sendable, Hashable {
    /// The device, as its samples name it.
    public var device: DeviceIdentity
    /// Percent, 0–100.
    public var level: Int
    /// When the bridge received it.
    public var at: Date

    public init(device: DeviceIdentity, level: Int, at: Date) {
        self.device = device
        self.level = level
        self.at = at
    }
}
