import NIOCore

/// The end of an SMTP connection's pipeline: hands each reply to the client's stream, and ends the stream when
/// the connection closes or fails.
final class SMTPReplyForwarder: ChannelInboundHandler, Sendable {
    typealias InboundIn = SMTPReply

    let continuation: AsyncThrowingStream<SMTPReply, any Error>.Continuation

    init(continuation: AsyncThrowingStream<SMTPReply, any Error>.Continuation) {
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
