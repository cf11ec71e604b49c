public import NIOCore

/// Turns inbound bytes into ``MQTTPacket`` values; malformed input fails the channel with ``MQTTPacketError``.
public struct MQTTPacketDecoder: ByteToMessageDecoder, Sendable {
    public typealias InboundOut = MQTTPacket

    public init() {}

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let packet = try MQTTPacket.decode(from: &buffer) else { return .needMoreData }
        context.fireChannelRead(Self.wrapInboundOut(packet))
        return .continue
    }

    public mutating func decodeLast(
        context: ChannelHandlerContext,
        buffer: inout ByteBuffer,
        seenEOF: Bool
    ) throws -> DecodingState {
        try decode(context: context, buffer: &buffer)
    }
}

/// Writes outbound ``MQTTPacket`` values as bytes.
public struct MQTTPacketEncoder: MessageToByteEncoder, Sendable {
    public typealias OutboundIn = MQTTPacket

    public init() {}

    public func encode(data: MQTTPacket, out: inout ByteBuffer) throws {
        try data.encode(into: &out)
    }
}
