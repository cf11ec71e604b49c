public import NIOCore

/// One MQTT 3.1.1 control packet, as a value.
///
/// ``encode(into:)`` writes the fixed header (type, flags, remaining length) and the body;
/// ``decode(from:)`` reads one whole packet or returns nil when more bytes are needed.
///
/// - SeeAlso: MQTT 3.1.1 §2, "MQTT Control Packet format".
public enum MQTTPacket: Sendable, Hashable {
    case connect(ConnectPacket)
    case connack(ConnAckPacket)
    case publish(PublishPacket)
    /// PUBACK for the packet identifier of a QoS 1 PUBLISH.
    case puback(packetID: UInt16)
    case subscribe(SubscribePacket)
    case suback(SubAckPacket)
    case pingreq
    case pingresp
    case disconnect

    /// The largest remaining length a four-byte varint can express (256 MB − 1).
    public static let maximumRemainingLength = 268_435_455

    public var packetType: MQTTPacketType {
        switch self {
        case .connect: .connect
        case .connack: .connack
        case .publish: .publish
        case .puback: .puback
        case .subscribe: .subscribe
        case .suback: .suback
        case .pingreq: .pingreq
        case .pingresp: .pingresp
        case .disconnect: .disconnect
        }
    }

    // MARK: - Encoding

    /// Appends the packet's wire form to `buffer`.
    ///
    /// - Throws: ``MQTTPacketError`` for values the wire cannot carry: strings over 65,535 bytes, a body over
    ///   ``maximumRemainingLength``, a wildcard in a PUBLISH topic, a zero or missing packet identifier.
    public func encode(into buffer: inout ByteBuffer) throws(MQTTPacketError) {
        var body = ByteBuffer()
        var flags = packetType.requiredFlags
        switch self {
        case .connect(let connect):
            try connect.encodeBody(into: &body)
        case .connack(let connack):
            body.writeInteger(UInt8(connack.sessionPresent ? 1 : 0))
            body.writeInteger(connack.returnCode.rawValue)
        case .publish(let publish):
            flags = publish.flags
            try publish.encodeBody(into: &body)
        case .puback(let packetID):
            guard packetID != 0 else { throw .zeroPacketIdentifier(packetType: .puback, offset: 0) }
            body.writeInteger(packetID, endianness: .big)
        case .subscribe(let subscribe):
            try subscribe.encodeBody(into: &body)
        case .suback(let suback):
            try suback.encodeBody(into: &body)
        case .pingreq, .pingresp, .disconnect:
            break
        }
        let header = packetType.rawValue << 4 | flags
        guard body.readableBytes <= Self.maximumRemainingLength else {
            throw .packetTooLarge(remainingLength: body.readableBytes)
        }
        buffer.writeInteger(header)
        try buffer.writeRemainingLength(body.readableBytes)
        buffer.writeImmutableBuffer(body)
    }

    // MARK: - Decoding

    /// Reads the remaining-length varint that starts `offset` bytes after the reader index, without moving it.
    ///
    /// - Returns: the value and how many bytes encoded it, or nil when the buffer ends inside the varint.
    static func peekRemainingLength(
        in buffer: ByteBuffer,
        at offset: Int
    ) throws(MQTTPacketError) -> (value: Int, length: Int)? {
        var value = 0
        for index in 0..<4 {
            guard let byte = buffer.getInteger(at: buffer.readerIndex + offset + index, as: UInt8.self) else {
                return nil
            }
            value |= Int(byte & 0x7F) << (7 * index)
            if byte & 0x80 == 0 { return (value, index + 1) }
        }
        throw .malformedRemainingLength(offset: offset)
    }

    /// Removes one whole packet from the front of `buffer` and decodes it.
    ///
    /// - Returns: the packet, or nil (with `buffer` untouched) when the packet is not complete yet.
    /// - Throws: ``MQTTPacketError`` when the bytes are not a valid packet; the reader index is then unspecified.
    public static func decode(from buffer: inout ByteBuffer) throws(MQTTPacketError) -> MQTTPacket? {
        guard let header = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) else { return nil }
        let typeRaw = header >> 4
        let flags = header & 0x0F
        guard let type = MQTTPacketType(rawValue: typeRaw) else {
            throw .unsupportedPacketType(raw: typeRaw, offset: 0)
        }
        guard let (remaining, varintLength) = try peekRemainingLength(in: buffer, at: 1) else { return nil }
        let headerLength = 1 + varintLength
        guard buffer.readableBytes >= headerLength + remaining else { return nil }
        buffer.moveReaderIndex(forwardBy: headerLength)
        let body = buffer.readSlice(length: remaining)!
        var reader = PacketReader(body: body, baseOffset: headerLength)

        if type != .publish, flags != type.requiredFlags {
            throw .invalidFixedHeaderFlags(packetType: type, flags: flags)
        }
        let packet: MQTTPacket
        switch type {
        case .connect:
            packet = .connect(try ConnectPacket(decoding: &reader))
        case .connack:
            try expectLength(2, remaining, type)
            let flagsOffset = reader.offset
            let ackFlags = try reader.readByte("acknowledge flags")
            guard ackFlags & 0xFE == 0 else { throw .invalidConnAckFlags(ackFlags, offset: flagsOffset) }
            let code = try reader.readByte("return code")
            packet = .connack(
                ConnAckPacket(sessionPresent: ackFlags == 1, returnCode: ConnAckPacket.ReturnCode(rawValue: code))
            )
        case .publish:
            packet = .publish(try PublishPacket(flags: flags, decoding: &reader))
        case .puback:
            try expectLength(2, remaining, type)
            packet = .puback(packetID: try reader.readPacketIdentifier(.puback))
        case .subscribe:
            packet = .subscribe(try SubscribePacket(decoding: &reader))
        case .suback:
            packet = .suback(try SubAckPacket(decoding: &reader))
        case .pingreq:
            try expectLength(0, remaining, type)
            packet = .pingreq
        case .pingresp:
            try expectLength(0, remaining, type)
            packet = .pingresp
        case .disconnect:
            try expectLength(0, remaining, type)
            packet = .disconnect
        case .pubrec, .pubrel, .pubcomp, .unsubscribe, .unsuback:
            throw .unsupportedPacketType(raw: typeRaw, offset: 0)
        }
        guard reader.remaining == 0 else {
            throw .remainingLengthMismatch(packetType: type, declared: remaining, consumed: reader.consumed)
        }
        return packet
    }

    private static func expectLength(
        _ expected: Int,
        _ declared: Int,
        _ type: MQTTPacketType
    ) throws(MQTTPacketError) {
        guard declared == expected else {
            throw .remainingLengthMismatch(packetType: type, declared: declared, consumed: expected)
        }
    }
}
