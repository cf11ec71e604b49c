import Foundation
import Logging
import Synchronization

/// Our `org.bluez.Agent1`, exported for devices whose profile requires bonding.
///
/// Scoped: it answers only for device paths the client is pairing right now and rejects every other request,
/// so it never approves pairings someone else started. The passkey comes from configuration; without one it
/// offers just-works (`NoInputNoOutput`).
///
/// With a passkey it is `KeyboardOnly`: the device shows (or has printed on it) the passkey and we enter it.
/// `KeyboardDisplay` would make the kernel's SMP choose us as the side that displays a random passkey whenever the
/// device can also enter one (a keyboard device, or a keyboard-and-display one), and the configured passkey
/// would never be asked for: seen against bluetoothd 5.66, where pairing then failed with
/// `AuthenticationFailed`.
final class PairingAgent: Sendable {
    let path = "/org/carebridge/agent"
    let passkey: UInt32?
    let logger: Logger
    private let allowed = Mutex<Set<String>>([])

    init(passkey: UInt32?, logger: Logger) {
        self.passkey = passkey
        self.logger = logger
    }

    var capability: String { passkey == nil ? "NoInputNoOutput" : "KeyboardOnly" }

    func allow(_ devicePath: String) { _ = allowed.withLock { $0.insert(devicePath) } }
    func forbid(_ devicePath: String) { _ = allowed.withLock { $0.remove(devicePath) } }

    func export(on bus: DBusConnection) async throws(DBusError) {
        _ = try await bus.exportObject(at: path) { [self] message in self.answer(message) }
    }

    static let introspection = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>
          <interface name="org.bluez.Agent1">
            <method name="Release"/>
            <method name="RequestPinCode"><arg type="o" direction="in"/><arg type="s" direction="out"/></method>
            <method name="DisplayPinCode"><arg type="o" direction="in"/><arg type="s" direction="in"/></method>
            <method name="RequestPasskey"><arg type="o" direction="in"/><arg type="u" direction="out"/></method>
            <method name="DisplayPasskey"><arg type="o" direction="in"/><arg type="u" direction="in"/><arg type="q" direction="in"/></method>
            <method name="RequestConfirmation"><arg type="o" direction="in"/><arg type="u" direction="in"/></method>
            <method name="RequestAuthorization"><arg type="o" direction="in"/></method>
            <method name="AuthorizeService"><arg type="o" direction="in"/><arg type="s" direction="in"/></method>
            <method name="Cancel"/>
          </interface>
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect"><arg type="s" direction="out"/></method>
          </interface>
        </node>
        """

    /// Answers one Agent1 call (runs on the bus thread).
    func answer(_ message: DBusMessage) -> DBusMethodReply {
        if message.interface == BlueZ.introspectable, message.member == "Introspect" {
            return .values([.string(Self.introspection)])
        }
        guard message.interface == BlueZ.agent || message.interface == nil else {
            return .error(name: .unknownMethod, message: "unknown interface \(message.interface ?? "")")
        }
        let device = message.arguments.first?.string ?? ""
        let permitted = allowed.withLock { $0.contains(device) }
        let reject = DBusMethodReply.error(name: .rejected, message: "CareBridge is not pairing \(device)")
        logger.info("agent request", metadata: ["method": "\(message.member ?? "")", "device": "\(device)"])
        switch message.member {
        case "Release", "Cancel", "DisplayPinCode", "DisplayPasskey":
            return .values([])
        case "RequestPinCode":
            guard permitted, let passkey else { return reject }
            return .values([.string(String(format: "%06u", passkey))])
        case "RequestPasskey":
            guard permitted, let passkey else { return reject }
            return .values([.uint32(passkey)])
        case "RequestConfirmation":
            guard permitted else { return reject }
            let shown = message.arguments.count > 1 ? message.arguments[1].integer : nil
            if let passkey, let shown, UInt32(shown) != passkey { return reject }
            return .values([])
        case "RequestAuthorization", "AuthorizeService":
            return permitted ? .values([]) : reject
        default:
            return .error(name: .unknownMethod, message: "unknown method \(message.member ?? "")")
        }
    }
}
