/// A D-Bus error name: an open set, so names we do not know still round-trip.
public struct DBusErrorName: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public static let inProgress = DBusErrorName("org.bluez.Error.InProgress")
    public static let failed = DBusErrorName("org.bluez.Error.Failed")
    public static let notReady = DBusErrorName("org.bluez.Error.NotReady")
    public static let notPermitted = DBusErrorName("org.bluez.Error.NotPermitted")
    public static let notSupported = DBusErrorName("org.bluez.Error.NotSupported")
    public static let notConnected = DBusErrorName("org.bluez.Error.NotConnected")
    public static let alreadyConnected = DBusErrorName("org.bluez.Error.AlreadyConnected")
    public static let alreadyExists = DBusErrorName("org.bluez.Error.AlreadyExists")
    public static let doesNotExist = DBusErrorName("org.bluez.Error.DoesNotExist")
    public static let authenticationFailed = DBusErrorName("org.bluez.Error.AuthenticationFailed")
    public static let rejected = DBusErrorName("org.bluez.Error.Rejected")
    public static let canceled = DBusErrorName("org.bluez.Error.Canceled")
    public static let unknownObject = DBusErrorName("org.freedesktop.DBus.Error.UnknownObject")
    public static let unknownMethod = DBusErrorName("org.freedesktop.DBus.Error.UnknownMethod")
    public static let serviceUnknown = DBusErrorName("org.freedesktop.DBus.Error.ServiceUnknown")
    public static let nameHasNoOwner = DBusErrorName("org.freedesktop.DBus.Error.NameHasNoOwner")
    public static let noReply = DBusErrorName("org.freedesktop.DBus.Error.NoReply")
    public static let timeout = DBusErrorName("org.freedesktop.DBus.Error.Timeout")
    public static let timedOut = DBusErrorName("org.freedesktop.DBus.Error.TimedOut")
    public static let accessDenied = DBusErrorName("org.freedesktop.DBus.Error.AccessDenied")
    public static let disconnected = DBusErrorName("org.freedesktop.DBus.Error.Disconnected")
}

/// An error from the bus: a method error reply, or a failing sd-bus call (negative errno).
public struct DBusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The D-Bus error name (for errno failures: the errno mapped by sd-bus, e.g. `System.Error.ENOENT`).
    public var name: DBusErrorName
    public var message: String
    /// The sd-bus function or D-Bus member that failed, e.g. `sd_bus_open_system` or `Adapter1.StartDiscovery`.
    public var operation: String
    /// The errno when the failure came from sd-bus itself rather than from a reply.
    public var errno: Int32?

    public init(name: DBusErrorName, message: String, operation: String, errno: Int32? = nil) {
        self.name = name
        self.message = message
        self.operation = operation
        self.errno = errno
    }

    public var description: String {
        var text = "\(operation): \(name)"
        if !message.isEmpty { text += ": \(message)" }
        return text
    }
}
