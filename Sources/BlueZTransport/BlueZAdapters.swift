import Foundation

/// An adapter as bluetoothd reports it (`org.bluez.Adapter1`).
public struct BlueZAdapterState: Sendable, Hashable {
    public var name: String
    public var address: String?
    public var alias: String?
    public var powered: Bool
    /// `on`, `off`, `off-blocked` (rfkill), … where bluetoothd exposes `PowerState`.
    public var powerState: String?
    public var discovering: Bool
    /// `modalias` (`usb:v1D6Bp0246d0537`): bluetoothd's view of the hardware.
    public var modalias: String?

    public init(
        name: String,
        address: String? = nil,
        alias: String? = nil,
        powered: Bool,
        powerState: String? = nil,
        discovering: Bool,
        modalias: String? = nil
    ) {
        self.name = name
        self.address = address
        self.alias = alias
        self.powered = powered
        self.powerState = powerState
        self.discovering = discovering
        self.modalias = modalias
    }
}

/// One controller seen through udev, bluetoothd, or both.
public struct AdapterReport: Sendable, Hashable {
    public var name: String
    public var hardware: BluetoothController?
    public var bluez: BlueZAdapterState?
}

public enum BlueZAdapters {
    /// The adapters bluetoothd knows, by name.
    /// - Throws: `TransportError` (`busUnavailable`, `bluetoothdNotRunning`).
    public static func list(bus address: DBusBusAddress = .system) async throws(TransportError) -> [BlueZAdapterState] {
        let bus: DBusConnection
        do {
            bus = try DBusConnection.open(address)
        } catch {
            throw TransportError(
                .busUnavailable,
                "cannot connect to the D-Bus system bus: \(error.message)",
                cause: error
            )
        }
        defer { bus.close() }
        let reply: DBusMessage
        do {
            reply = try await bus.call(
                DBusMethodCall(
                    destination: BlueZ.service,
                    path: "/",
                    interface: BlueZ.objectManager,
                    member: "GetManagedObjects"
                ),
                timeout: .seconds(10)
            )
        } catch {
            if error.name == .serviceUnknown || error.name == .nameHasNoOwner {
                throw TransportError(
                    .bluetoothdNotRunning,
                    "bluetoothd is not running: nobody owns org.bluez on the system bus (start it with `sudo systemctl start bluetooth`)",
                    cause: error
                )
            }
            throw TransportError(.busUnavailable, "GetManagedObjects on org.bluez failed", cause: error)
        }
        var mirror = ObjectMirror()
        mirror.load(snapshot: reply)
        return mirror.paths(implementing: BlueZ.adapter).map { path in
            let p = mirror.properties(path, BlueZ.adapter) ?? [:]
            return BlueZAdapterState(
                name: String(path.split(separator: "/").last ?? ""),
                address: p["Address"]?.string,
                alias: p["Alias"]?.string,
                powered: p["Powered"]?.bool ?? false,
                powerState: p["PowerState"]?.string,
                discovering: p["Discovering"]?.bool ?? false,
                modalias: p["Modalias"]?.string
            )
        }
    }

    /// udev's controllers joined with bluetoothd's adapters by name (either side may be missing).
    public static func report(hardware: [BluetoothController], bluez: [BlueZAdapterState]) -> [AdapterReport] {
        let names = Set(hardware.map(\.name)).union(bluez.map(\.name))
        return names.sorted { $0.localizedStandardCompare($1) == .orderedAscending }.map { name in
            AdapterReport(
                name: name,
                hardware: hardware.first { $0.name == name },
                bluez: bluez.first { $0.name == name }
            )
        }
    }
}
