public import CareWeb
import NIOCore
import NIOSSL

extension WebContext {
    /// The fingerprint (``HubClientCertificate/fingerprint``) of the client certificate the connection's TLS
    /// handshake verified (`hub serve --client-ca`); nil over plain HTTP or when the client showed none.
    public func clientCertificateFingerprint() async -> String? {
        guard let certificate = try? await channel.nioSSL_peerCertificate().get(),
            let der = try? certificate.toDERBytes()
        else { return nil }
        return HubClientCertificate.fingerprint(der: der)
    }
}
