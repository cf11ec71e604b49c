/// A message received from the bus, copied out of sd-bus into Swift values.
public struct DBusMessage: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case methodCall, methodReturn, methodError, signal
    }

    public var kind: Kind
    /// Order in which the bus thread received messages (replies and signals share the counter).
    public var sequence: UInt64
    public var sender: String?
    public var path: String?
    public var interface: String?
    public var member: String?
    public var arguments: [DBusValue]

    public init(
        kind: Kind,
        sequence: UInt64,
        sender: String? = nil,
        path: String? = nil,
        interface: String? = nil,
        member: String? = nil,
        arguments: [DBusValue] = []
    ) {
        self.kind = kind
        self.sequence = sequence
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }
}

/// A method call to send.
public struct DBusMethodCall: Sendable, Hashable {
    public var destination: String
    public var path: String
    public var interface: String
    public var member: String
    public var arguments: [DBusValue]

    public init(destination: String, path: String, interface: String, member: String, arguments: [DBusValue] = []) {
        self.destination = destination
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }
}

/// What an exported object answers to an incoming method call.
public enum DBusMethodReply: Sendable, Hashable {
    case values([DBusValue])
    case error(name: DBusErrorName, message: String)
}
