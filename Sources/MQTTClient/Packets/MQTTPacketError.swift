/// Why bytes could not be decoded as, or a value could not be encoded as, an MQTT 3.1.1 control packet.
///
/// Offsets count from the first byte of the packet (the fixed header's type byte).
public enum MQTTPacketError: Error, Hashable, Sendable {
    /// The remaining-length varint used more than four bytes.
    case malformedRemainingLength(offset: Int)
    /// The packet type nibble is reserved (0 or 15) or a type this client does not implement.
    case unsupportedPacketType(raw: UInt8, offset: Int)
    /// The low nibble of the fixed header has flags the packet type forbids.
    case invalidFixedHeaderFlags(packetType: MQTTPacketType, flags: UInt8)
    /// The packet body ended before a field was complete.
    case insufficientBytes(field: String, expected: Int, actual: Int, offset: Int)
    /// The body was longer than its fields (bytes left over) or a fixed-size packet had the wrong length.
    case remainingLengthMismatch(packetType: MQTTPacketType, declared: Int, consumed: Int)
    /// A length-prefixed string was not valid UTF-8, or contained U+0000.
    case invalidUTF8(field: String, offset: Int)
    /// A QoS field held 3, or a reserved value.
    case invalidQoS(field: String, raw: UInt8, offset: Int)
    /// CONNECT's protocol name was not "MQTT".
    case invalidProtocolName(String, offset: Int)
    /// CONNECT's protocol level was not 4 (MQTT 3.1.1).
    case unsupportedProtocolLevel(UInt8, offset: Int)
    /// CONNECT's flags byte was inconsistent (reserved bit set, will fields without the will flag, password
    /// without a user name).
    case invalidConnectFlags(UInt8, offset: Int)
    /// CONNACK's acknowledge flags had reserved bits set.
    case invalidConnAckFlags(UInt8, offset: Int)
    /// A packet identifier was 0, which MQTT forbids.
    case zeroPacketIdentifier(packetType: MQTTPacketType, offset: Int)
    /// A PUBLISH topic name was empty or contained a wildcard (`+`, `#`).
    case invalidTopicName(String)
    /// A SUBSCRIBE or SUBACK carried no topic filters or return codes.
    case emptyPayload(packetType: MQTTPacketType)
    /// A string or binary field is longer than the 65,535 bytes its length prefix can express.
    case fieldTooLong(field: String, length: Int)
    /// The whole packet is longer than the 268,435,455 bytes the remaining length can express.
    case packetTooLarge(remainingLength: Int)
}
