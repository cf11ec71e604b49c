import NIOCore
import NIOSSL
import NIOTLS
import SwiftASN1
import X509

/// Reports a TLS handshake the server refused to the server's ``TLSRefusalLog``, once per connection: the peer's
/// address and the reason (``TLSRefusal``), read from BoringSSL's error and, for a client certificate that failed
/// verification, from the certificate the client showed checked against the client CA (`authorities`): expired,
/// not valid yet, signed by another CA, or another check. Of a certificate only the common name and the validity
/// dates go into words, never a key.
///
/// Sits in the pipeline behind the `NIOSSLServerHandler`, which fires the handshake's failure as an error and its
/// success as `TLSUserEvent.handshakeCompleted`; both pass on unchanged.
final class TLSHandshakeLog: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let log: TLSRefusalLog
    private let authorities: [Certificate]
    private var settled = false

    init(log: TLSRefusalLog, authorities: [Certificate]) {
        self.log = log
        self.authorities = authorities
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted? = event as? TLSUserEvent { settled = true }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !settled {
            settled = true
            let refusal = TLSRefusal(
                error,
                clientCertificate: { Self.clientCertificate(context) },
                authorities: authorities,
                now: log.now()
            )
            log.refused(refusal, peer: context.channel.remoteAddress)
        }
        context.fireErrorCaught(error)
    }

    /// The certificate the client showed in this (failed) handshake, as BoringSSL keeps it for the session.
    private static func clientCertificate(_ context: ChannelHandlerContext) -> Certificate? {
        guard let handler = try? context.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self),
            let der = try? handler.peerCertificate?.toDERBytes()
        else { return nil }
        return try? Certificate(derEncoded: der)
    }
}
