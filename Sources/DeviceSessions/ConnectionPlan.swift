public import BridgeCore
public import BridgeFoundation
import GATTDecoding

/// What a live transport should do with a device it has seen: decided by the device profiles, carried out
/// by the transport.
public struct ConnectionPlan: Sendable, Hashable {
    public enum LinkMode: String, Sendable, Hashable, Codable {
        /// Connect over GATT and subscribe.
        case gatt
        /// Never connect; the readings are in the advertisements.
        case broadcast
    }

    /// Id of the profile that claimed the device.
    public var profile: String
    public var linkMode: LinkMode
    /// Characteristics to subscribe to (notify or indicate).
    public var subscribe: [BluetoothUUID]
    /// Characteristics to read once after connecting (Device Information, Battery).
    public var readOnce: [BluetoothUUID]
    /// The device must be bonded before its characteristics can be used.
    public var requiresPairing: Bool
    /// Whether a bond is kept between sessions or renewed for each one (meaningful with `requiresPairing`).
    public var bondRenewal: BondRenewal
    /// Write Current Time (0x2A2B) after connecting, if the user enabled it.
    public var setsDeviceClock: Bool
    /// The profile's session steps, run after subscribing (empty: the device sends on its own).
    public var session: SessionScript

    public init(
        profile: String,
        linkMode: LinkMode,
        subscribe: [BluetoothUUID] = [],
        readOnce: [BluetoothUUID] = [],
        requiresPairing: Bool = false,
        bondRenewal: BondRenewal = .once,
        setsDeviceClock: Bool = false,
        session: SessionScript = SessionScript()
    ) {
        self.profile = profile
        self.linkMode = linkMode
        self.subscribe = subscribe
        self.readOnce = readOnce
        self.requiresPairing = requiresPairing
        self.bondRenewal = bondRenewal
        self.setsDeviceClock = setsDeviceClock
        self.session = session
    }
}

/// Decides, from an advertisement, whether and how to use a device (implemented by the Devices/ catalogue).
public protocol ConnectionPolicy: Sendable {
    /// The plan for a device, or nil when no profile claims it.
    func plan(forDevice address: String, advertisement: Advertisement) -> ConnectionPlan?
}
