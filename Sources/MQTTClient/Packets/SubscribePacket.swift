import NIOCore

/// SUBSCRIBE: topic filters and the maximum QoS wanted for each.
///
/// - SeeAlso: MQTT 3.1.1 §3.8, "SUBSCRIBE - Subscribe to topics".
public struct SubscribePacket: Sendable, Hashable {
    public struct Subscription: Sendable, Hashable {
        public var topicFilter: String
        public var qos: QoS

        public init(topicFilter: String, qos: QoS) {
            self.topicFilter = topicFilter
            self.qos = qos
        }
    }

    public var packetID: UInt16
    public var subscriptions: [Subscription]

    public init(packetID: UInt16, subscriptions: [Subscription]) {
        self.packetID = packetID
        self.subscriptions = subscriptions
    }

    func encodeBody(into buffer: inout ByteBuffer) throws(MQTTPacketError) {
        guard packetID != 0 else { throw .zeroPacketIdentifier(packetType: .subscribe, offset: 0) }
        guard !subscriptions.isEmpty else { throw .emptyPayload(packetType: .subscribe) }
        buffer.writeInteger(packetID, endianness: .big)
        for subscription in subscriptions {
            try buffer.writeMQTTString(subscription.topicFilter, field: "topic filter")
            buffer.writeInteger(subscription.qos.rawValue)
        }
    }

    init(decoding reader: inout PacketReader) throws(MQTTPacketError) {
        packetID = try reader.readPacketIdentifier(.subscribe)
        var subscriptions: [Subscription] = []
        while reader.remaining > 0 {
            let filter = try reader.readString("topic filter")
            let qosOffset = reader.offset
            let raw = try reader.readByte("requested QoS")
            // The upper six bits are reserved and must be 0 [MQTT-3-8.3-4].
            guard raw & 0xFC == 0, let qos = QoS(rawValue: raw) else {
                throw .invalidQoS(field: "requested QoS", raw: raw, offset: qosOffset)
            }
            subscriptions.append(Subscription(topicFilter: filter, qos: qos))
        }
        guard !subscriptions.isEmpty else { throw .emptyPayload(packetType: .subscribe) }
        self.subscriptions = subscriptions
    }
}
