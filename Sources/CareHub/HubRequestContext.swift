public import Hummingbird
public import NIOCore
import NIOSSL

/// What a request to the hub carries besides itself: the connection, whose TLS handshake may have checked a
/// bridge's client certificate (`hub serve --client-ca`).
public struct HubRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connection the request came on.
    public let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// The fingerprint (``HubClientCertificate/fingerprint``) of the client certificate the connection's TLS
    /// handshake verified; nil over plain HTTP or when the client showed none.
    public func clientCertificateFingerprint() async -> String? {
        guard let certificate = try? await channel.nioSSL_peerCertificate().get(),
            let der = try? certificate.toDERBytes()
        else { return nil }
        return HubClientCertificate.fingerprint(der: der)
    }
}
