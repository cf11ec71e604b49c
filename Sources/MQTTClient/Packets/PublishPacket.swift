public import NIOCore

/// PUBLISH: an application message on a topic.
///
/// - SeeAlso: MQTT 3.1.1 §3.3, "PUBLISH – Publish message".
public struct PublishPacket: Sendable, Hashable {
    public var topic: String
    public var payload: ByteBuffer
    public var qos: QoS
    public var retain: Bool
    /// Set when the packet is a re-delivery of one sent before (QoS > 0 only).
    public var dup: Bool
    /// Present exactly when `qos` is above ``QoS/atMostOnce``.
    public var packetID: UInt16?

    public init(
        topic: String,
        payload: ByteBuffer,
        qos: QoS = .atMostOnce,
        retain: Bool = false,
        dup: Bool = false,
        packetID: UInt16? = nil
    ) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.dup = dup
        self.packetID = packetID
    }

    /// Whether `topic` may be used as a PUBLISH topic name: non-empty and free of wildcards.
    public static func isValidTopicName(_ topic: String) -> Bool {
        !topic.isEmpty && !topic.contains("+") && !topic.contains("#") && !topic.utf8.contains(0)
    }

    var flags: UInt8 {
        (dup ? 0b1000 : 0) | (qos.rawValue << 1) | (retain ? 1 : 0)
    }

    func encodeBody(into buffer: inout ByteBuffer) throws(MQTTPacketError) {
        guard Self.isValidTopicName(topic) else { throw .invalidTopicName(topic) }
        try buffer.writeMQTTString(topic, field: "topic name")
        if qos != .atMostOnce {
            guard let packetID, packetID != 0 else { throw .zeroPacketIdentifier(packetType: .publish, offset: 0) }
            buffer.writeInteger(packetID, endianness: .big)
        }
        buffer.writeImmutableBuffer(payload)
    }

    init(flags: UInt8, decoding reader: inout PacketReader) throws(MQTTPacketError) {
        let qosRaw = (flags >> 1) & 0b11
        guard let qos = QoS(rawValue: qosRaw) else { throw .invalidQoS(field: "PUBLISH QoS", raw: qosRaw, offset: 0) }
        let dup = flags & 0b1000 != 0
        // [MQTT-3.3.1-2]: DUP must be 0 for QoS 0.
        guard !(dup && qos == .atMostOnce) else { throw .invalidFixedHeaderFlags(packetType: .publish, flags: flags) }
        self.qos = qos
        self.dup = dup
        self.retain = flags & 1 != 0
        topic = try reader.readString("topic name")
        guard Self.isValidTopicName(topic) else { throw .invalidTopicName(topic) }
        packetID = qos == .atMostOnce ? nil : try reader.readPacketIdentifier(.publish)
        payload = reader.readRest()
    }
}
