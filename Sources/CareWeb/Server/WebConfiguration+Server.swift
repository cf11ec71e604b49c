public import HummingbirdCore
import HummingbirdTLS
import NIOSSL
import SwiftASN1
import X509

extension WebConfiguration {
    /// HTTP/1.1, over TLS from ``tls``'s PEM files when they are given: the care app's server, and the hub's (which
    /// also checks the client certificates of ``clientCertificateAuthority``).
    /// A refused TLS handshake goes to `refusals` (``TLSHandshakeLog``), which logs it with its reason (a client
    /// certificate expired, not valid yet, or of another CA) and rate-limits by peer.
    /// - Throws: ``WebStartError`` naming the files when they cannot be used.
    public func serverBuilder(refusals: TLSRefusalLog) throws(WebStartError) -> HTTPServerBuilder {
        guard let tls else { return .http1() }
        do {
            let chain = try NIOSSLCertificate.fromPEMFile(tls.certificate).map {
                NIOSSLCertificateSource.certificate($0)
            }
            let key = try NIOSSLPrivateKey(file: tls.key, format: .pem)
            var configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: chain,
                privateKey: .privateKey(key)
            )
            var authorities: [Certificate] = []
            if let authority = clientCertificateAuthority {
                do {
                    let certificates = try NIOSSLCertificate.fromPEMFile(authority)
                    configuration.trustRoots = .certificates(certificates)
                    authorities = try certificates.map { try Certificate(derEncoded: try $0.toDERBytes()) }
                } catch {
                    throw WebStartError("cannot use the client CA \(authority): \(error)")
                }
                configuration.certificateVerification = .optionalVerification
            }
            let clientCA = authorities
            return try .tls(
                .http1(
                    configuration: .init(
                        additionalChannelHandlers: [TLSHandshakeLog(log: refusals, authorities: clientCA)]
                    )
                ),
                tlsConfiguration: configuration
            )
        } catch let error as WebStartError {
            throw error
        } catch {
            throw WebStartError("cannot use the TLS certificate \(tls.certificate) and key \(tls.key): \(error)")
        }
    }

    /// The address the server listens at, once bound (`--listen :0` binds any free port): `https://host:port`.
    public func url(boundPort: Int?) -> String {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return "\(isSecure ? "https" : "http")://\(bracketed):\(boundPort ?? port)"
    }
}
