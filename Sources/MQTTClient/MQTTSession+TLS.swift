import NIOCore
import NIOSSL
import NIOTLS
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

extension MQTTSession.Configuration {
    /// TLS to the broker (`mqtts://`): whom to trust, who the bridge is, and whether the broker's name is checked.
    ///
    /// The broker's certificate must chain to a CA in ``caFile`` (the system's trust store when nil) and, unless
    /// ``verifiesHostname`` is off, name the host of the URL (a DNS name in its subject alternative names, or the
    /// IP address the URL gives).
    public struct TLS: Sendable, Hashable {
        /// A PEM file with the CA certificate(s) the broker's certificate must chain to; nil: the system's trust store.
        public var caFile: String?
        /// A PEM file with the bridge's client certificate (and its chain), for brokers that require one.
        public var certificateFile: String?
        /// The PEM private key of ``certificateFile``.
        public var keyFile: String?
        /// Whether the broker's certificate must name the host the bridge connects to. On by default; turning it
        /// off still checks the CA, but lets any certificate that CA signed impersonate the broker.
        public var verifiesHostname: Bool

        public init(
            caFile: String? = nil,
            certificateFile: String? = nil,
            keyFile: String? = nil,
            verifiesHostname: Bool = true
        ) {
            self.caFile = caFile
            self.certificateFile = certificateFile
            self.keyFile = keyFile
            self.verifiesHostname = verifiesHostname
        }

        /// Loads the files and builds the TLS context every connection of a session uses.
        ///
        /// - Throws: ``MQTTClientError`` `.tlsFailed(.invalidConfiguration)` naming the file that cannot be read or
        ///   holds no PEM certificate or key, or a certificate without its key.
        func makeContext() throws(MQTTClientError) -> NIOSSLContext {
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.minimumTLSVersion = .tlsv12
            configuration.certificateVerification = verifiesHostname ? .fullVerification : .noHostnameVerification
            if let caFile {
                configuration.trustRoots = .certificates(try Self.certificates(caFile, what: "CA file"))
            }
            switch (certificateFile, keyFile) {
            case (nil, nil):
                break
            case (let certificateFile?, let keyFile?):
                configuration.certificateChain = try Self.certificates(certificateFile, what: "client certificate")
                    .map { .certificate($0) }
                try Self.checkReadable(keyFile, what: "client key")
                do {
                    configuration.privateKey = .privateKey(try NIOSSLPrivateKey(file: keyFile, format: .pem))
                } catch {
                    throw MQTTClientError(
                        .tlsFailed(.invalidConfiguration),
                        "client key \(keyFile) holds no PEM private key (an encrypted key is not supported)",
                        cause: error
                    )
                }
            case (nil, _?):
                throw MQTTClientError(.tlsFailed(.invalidConfiguration), "a client key needs its client certificate")
            case (_?, nil):
                throw MQTTClientError(.tlsFailed(.invalidConfiguration), "a client certificate needs its key")
            }
            do {
                return try NIOSSLContext(configuration: configuration)
            } catch {
                throw MQTTClientError(
                    .tlsFailed(.invalidConfiguration),
                    "cannot set up TLS with \(describeFiles): \(error)",
                    cause: error
                )
            }
        }

        /// Loads the files once to report a bad one before anything connects.
        /// - Throws: like ``makeContext()``.
        public func validate() throws(MQTTClientError) { _ = try makeContext() }

        private var describeFiles: String {
            [caFile.map { "CA file \($0)" }, certificateFile.map { "certificate \($0)" }, keyFile.map { "key \($0)" }]
                .compactMap { $0 }.joined(separator: ", ")
        }

        private static func certificates(_ path: String, what: String) throws(MQTTClientError) -> [NIOSSLCertificate] {
            try checkReadable(path, what: what)
            let certificates: [NIOSSLCertificate]
            do {
                certificates = try NIOSSLCertificate.fromPEMFile(path)
            } catch {
                throw MQTTClientError(
                    .tlsFailed(.invalidConfiguration),
                    "\(what) \(path) holds no PEM certificate",
                    cause: error
                )
            }
            guard !certificates.isEmpty else {
                throw MQTTClientError(.tlsFailed(.invalidConfiguration), "\(what) \(path) holds no PEM certificate")
            }
            return certificates
        }

        private static func checkReadable(_ path: String, what: String) throws(MQTTClientError) {
            guard access(path, R_OK) == 0 else {
                let reason = String(cString: strerror(errno))
                throw MQTTClientError(.tlsFailed(.invalidConfiguration), "cannot read \(what) \(path): \(reason)")
            }
        }
    }
}

/// Sits behind the TLS handler and notes when the handshake has completed, so that a connection that breaks
/// before then is reported as a TLS failure (a plain MQTT port resets the connection on the ClientHello).
final class TLSHandshakeObserver: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    let completed = Atomic<Bool>(false)

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted = event as? TLSUserEvent { completed.store(true, ordering: .relaxed) }
        context.fireUserInboundEventTriggered(event)
    }
}

extension MQTTSession {
    /// The TLS handler for one connection to `host`: SNI and the expected name for a DNS name; for an IP address
    /// no SNI, and the certificate must carry that address.
    static func tlsHandler(context: NIOSSLContext, host: String) throws -> NIOSSLClientHandler {
        let isAddress = (try? SocketAddress(ipAddress: host, port: 0)) != nil
        return try NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : host)
    }

    /// Whether `error` comes from TLS (NIOSSL or BoringSSL) rather than the socket or MQTT.
    static func isTLSError(_ error: any Error) -> Bool {
        error is NIOSSLError || error is NIOSSLExtraError || error is BoringSSLError
    }

    /// What went wrong in a TLS connection, in words that name the broker (never its credentials).
    static func describeTLSFailure(
        _ error: any Error,
        broker: String,
        configuration: Configuration.TLS
    )
        -> MQTTClientError
    {
        let text = "\(error)"
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return MQTTClientError(
                .tlsFailed(.hostnameMismatch),
                "TLS to \(broker): the broker's certificate does not name this host (hostname verification is on; "
                    + "connect by a name or address the certificate lists)",
                cause: error
            )
        }
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            let trusted = configuration.caFile.map { "the CA in \($0)" } ?? "the system's trust store"
            return MQTTClientError(
                .tlsFailed(.untrustedCertificate),
                "TLS to \(broker): the broker's certificate is not trusted: not signed by \(trusted), or expired or "
                    + "not yet valid",
                cause: error
            )
        }
        return MQTTClientError(
            .tlsFailed(.handshakeFailed),
            "TLS to \(broker): the handshake failed (is it a TLS port? does the broker want a client certificate?)",
            cause: error
        )
    }
}
