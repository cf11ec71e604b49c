public import BridgeCore
public import Foundation

/// How the BlueZ transport behaves: adapter, timeouts, pairing, what to connect to.
public struct BlueZConfiguration: Sendable {
    /// The bus to talk to bluetoothd on (`.system` honours `DBUS_SYSTEM_BUS_ADDRESS`).
    public var bus: DBusBusAddress = .system
    /// Adapter name (`hci0`); nil picks the first powered adapter, else the first one.
    public var adapter: String?
    /// Only discover and report advertisements; never connect (`carebridge scan`).
    public var scanOnly = false
    /// Only this device address is reported and connected (`carebridge record --device`).
    public var onlyDevice: String?
    /// Passkey for devices whose profile requires bonding with a passkey; nil means just-works.
    public var passkey: UInt32?
    /// Write Current Time to devices whose profile asks for it.
    public var setDeviceClock = false
    /// Zone used when writing Current Time.
    public var timeZone: TimeZone = .current

    /// How long `Device1.Connect` may take.
    public var connectTimeout: Duration = .seconds(20)
    /// How long to wait for `ServicesResolved` and then for the profile's characteristics.
    public var servicesTimeout: Duration = .seconds(15)
    /// How long to wait for a vanished device object to reappear before giving up an attempt.
    public var reappearTimeout: Duration = .seconds(10)
    /// Pause after a session ends (or its attempts fail) before the same device is connected again.
    public var reconnectBackoff: Duration = .seconds(10)
    /// Timeout of ordinary method calls.
    public var callTimeout: Duration = .seconds(10)
    /// Follow controller hotplug through libudev (a hint; D-Bus stays the authority).
    public var followHotplug = true
    /// Delays between retries are multiplied by this (tests shrink them).
    public var backoffScale: Double = 1
    /// Scales the timeouts and delays of profile session steps (tests shorten them; 1 in production).
    public var sessionTimeScale: Double = 1
    /// Where profile sessions keep their variables between connections (the store in `carebridge run`); nil:
    /// every connection starts as on first contact and nothing is saved.
    public var sessionMemory: (any SessionMemory)?
    /// The clock of timeouts, back-off and session timers (tests pass a manual one).
    public var clock: any Clock<Duration> = ContinuousClock()
    /// The wall clock: event times, session steps' `now`, the Current Time written to devices.
    public var wallClock: @Sendable () -> Date = { Date() }

    public init() {}
}

/// Something the transport wants the service manager (and the log) to know.
public enum BlueZStatus: Sendable, Hashable {
    /// The mirror is built and discovery runs: `READY=1`.
    case ready(adapter: String)
    /// The loop made progress (an advertisement, a value): a `WATCHDOG=1` is due.
    case alive
    /// Discovery or the adapter is paused (bluetoothd restarting, adapter unplugged).
    case paused(reason: String)
    /// Working again after a pause.
    case resumed(adapter: String)
}
