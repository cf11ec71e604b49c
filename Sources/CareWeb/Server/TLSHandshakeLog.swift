import Logging
import NIOCore
import NIOSSL
import NIOTLS

/// Logs a TLS handshake the server refused, once per connection, at warning level: the peer's address and the
/// reason in words (no client certificate when one is required, one the client CA did not sign or expired, plain
/// HTTP to the TLS port, the client refusing the server's certificate), never any part of a certificate or key.
///
/// Sits in the pipeline behind the `NIOSSLServerHandler`, which fires the handshake's failure as an error and its
/// success as `TLSUserEvent.handshakeCompleted`; both pass on unchanged.
final class TLSHandshakeLog: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let logger: Logger
    private var settled = false

    init(logger: Logger) {
        self.logger = logger
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted? = event as? TLSUserEvent { settled = true }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !settled {
            settled = true
            let peer = context.channel.remoteAddress
            logger.warning(
                "TLS handshake refused",
                metadata: [
                    "peer": "\(peer.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" } ?? "unknown")",
                    "reason": "\(Self.reason(for: error))",
                ]
            )
        }
        context.fireErrorCaught(error)
    }

    /// The reason in words, from BoringSSL's error names; else the error's own description (which names no
    /// certificate's contents).
    static func reason(for error: any Error) -> String {
        let text = String(describing: error)
        let reasons = [
            ("PEER_DID_NOT_RETURN_A_CERTIFICATE", "the client showed no certificate, and one is required"),
            (
                "CERTIFICATE_VERIFY_FAILED",
                "the client certificate failed verification: not signed by the client CA, expired or not valid yet"
            ),
            ("HTTP_REQUEST", "plain HTTP to the TLS port"),
            ("WRONG_VERSION_NUMBER", "not TLS (plain HTTP to the TLS port?)"),
            ("ALERT_UNKNOWN_CA", "the client does not trust the server's certificate (unknown CA)"),
            ("ALERT_BAD_CERTIFICATE", "the client does not accept the server's certificate"),
            ("ALERT_CERTIFICATE_UNKNOWN", "the client does not accept the server's certificate"),
            ("NO_SHARED_CIPHER", "no cipher in common with the client"),
            ("UNSUPPORTED_PROTOCOL", "no TLS version in common with the client"),
        ]
        if let (_, reason) = reasons.first(where: { text.contains($0.0) }) { return reason }
        if case NIOSSLError.uncleanShutdown? = error as? NIOSSLError {
            return "the client closed the connection during the handshake"
        }
        return "the handshake failed: \(text)"
    }
}
