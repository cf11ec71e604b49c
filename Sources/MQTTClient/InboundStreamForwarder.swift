package import NIOCore

/// The last handler of a connection's pipeline: hands each decoded message (an MQTT packet, an SMTP reply) to
/// its reader through an async stream and finishes the stream (with the error, if any) when the channel closes.
package final class InboundStreamForwarder<Element: Sendable>: ChannelInboundHandler, Sendable {
    package typealias InboundIn = Element

    private let continuation: AsyncThrowingStream<Element, any Error>.Continuation

    package init(continuation: AsyncThrowingStream<Element, any Error>.Continuation) {
        self.continuation = continuation
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        continuation.yield(unwrapInboundIn(data))
    }

    package func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
        context.fireChannelInactive()
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        continuation.finish(throwing: error)
        context.close(promise: nil)
    }
}
