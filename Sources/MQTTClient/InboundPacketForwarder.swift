import NIOCore

/// The last handler of a session's pipeline: hands decoded packets to the session through an async stream and
/// finishes the stream (with the error, if any) when the channel closes.
final class InboundPacketForwarder: ChannelInboundHandler, Sendable {
    typealias InboundIn = MQTTPacket

    private let continuation: AsyncThrowingStream<MQTTPacket, any Error>.Continuation

    init(continuation: AsyncThrowingStream<MQTTPacket, any Error>.Continuation) {
        self.continuation = continuation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        continuation.yield(unwrapInboundIn(data))
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        continuation.finish(throwing: error)
        context.close(promise: nil)
    }
}
