public import NIOCore

/// CONNECT: the first packet a client sends, with its identity, session choice, keep-alive, will and credentials.
///
/// - SeeAlso: MQTT 3.1.1 §3.1, "CONNECT – Client requests a connection to a Server".
public struct ConnectPacket: Sendable, Hashable {
    /// The message the broker publishes for the client when the connection ends without DISCONNECT.
    public struct Will: Sendable, Hashable {
        public var topic: String
        public var payload: ByteBuffer
        public var qos: QoS
        public var retain: Bool

        public init(topic: String, payload: ByteBuffer, qos: QoS = .atLeastOnce, retain: Bool = false) {
            self.topic = topic
            self.payload = payload
            self.qos = qos
            self.retain = retain
        }
    }

    public var clientID: String
    /// Start with a fresh session (true) or resume the broker's stored one (false).
    public var cleanSession: Bool
    /// Seconds; 0 turns keep-alive off.
    public var keepAliveSeconds: UInt16
    public var will: Will?
    public var username: String?
    public var password: ByteBuffer?

    public init(
        clientID: String,
        cleanSession: Bool = true,
        keepAliveSeconds: UInt16 = 60,
        will: Will? = nil,
        username: String? = nil,
        password: ByteBuffer? = nil
    ) {
        self.clientID = clientID
        self.cleanSession = cleanSession
        self.keepAliveSeconds = keepAliveSeconds
        self.will = will
        self.username = username
        self.password = password
    }

    static let protocolName = "MQTT"
    static let protocolLevel: UInt8 = 4

    private enum Flag {
        static let username: UInt8 = 0x80
        static let password: UInt8 = 0x40
        static let willRetain: UInt8 = 0x20
        static let willQoSShift: UInt8 = 3
        static let will: UInt8 = 0x04
        static let cleanSession: UInt8 = 0x02
        static let reserved: UInt8 = 0x01
    }

    func encodeBody(into buffer: inout ByteBuffer) throws(MQTTPacketError) {
        if password != nil, username == nil {
            // [MQTT-3.1.2-22]: a password needs a user name.
            throw .invalidConnectFlags(Flag.password, offset: 0)
        }
        try buffer.writeMQTTString(Self.protocolName, field: "protocol name")
        buffer.writeInteger(Self.protocolLevel)
        var flags: UInt8 = 0
        if username != nil { flags |= Flag.username }
        if password != nil { flags |= Flag.password }
        if let will {
            flags |= Flag.will | (will.qos.rawValue << Flag.willQoSShift)
            if will.retain { flags |= Flag.willRetain }
        }
        if cleanSession { flags |= Flag.cleanSession }
        buffer.writeInteger(flags)
        buffer.writeInteger(keepAliveSeconds, endianness: .big)
        try buffer.writeMQTTString(clientID, field: "client identifier")
        if let will {
            try buffer.writeMQTTString(will.topic, field: "will topic")
            try buffer.writeMQTTBinary(will.payload, field: "will message")
        }
        if let username { try buffer.writeMQTTString(username, field: "user name") }
        if let password { try buffer.writeMQTTBinary(password, field: "password") }
    }

    init(decoding reader: inout PacketReader) throws(MQTTPacketError) {
        let nameOffset = reader.offset
        let name = try reader.readString("protocol name")
        guard name == Self.protocolName else { throw .invalidProtocolName(name, offset: nameOffset) }
        let levelOffset = reader.offset
        let level = try reader.readByte("protocol level")
        guard level == Self.protocolLevel else { throw .unsupportedProtocolLevel(level, offset: levelOffset) }
        let flagsOffset = reader.offset
        let flags = try reader.readByte("connect flags")
        let hasWill = flags & Flag.will != 0
        let willQoSRaw = (flags >> Flag.willQoSShift) & 0b11
        let badFlags =
            flags & Flag.reserved != 0
            || (!hasWill && (willQoSRaw != 0 || flags & Flag.willRetain != 0))
            || (flags & Flag.password != 0 && flags & Flag.username == 0)
        guard !badFlags else { throw .invalidConnectFlags(flags, offset: flagsOffset) }
        guard let willQoS = QoS(rawValue: willQoSRaw) else {
            throw .invalidQoS(field: "will QoS", raw: willQoSRaw, offset: flagsOffset)
        }
        keepAliveSeconds = try reader.readUInt16("keep alive")
        cleanSession = flags & Flag.cleanSession != 0
        clientID = try reader.readString("client identifier")
        if hasWill {
            let topic = try reader.readString("will topic")
            let payload = try reader.readBinary("will message")
            will = Will(topic: topic, payload: payload, qos: willQoS, retain: flags & Flag.willRetain != 0)
        } else {
            will = nil
        }
        username = flags & Flag.username != 0 ? try reader.readString("user name") : nil
        password = flags & Flag.password != 0 ? try reader.readBinary("password") : nil
    }
}
