import Foundation
import NIOSSL

extension HubDatabase {
    /// How the hub's link to PostgreSQL uses TLS, as libpq's `sslmode` names it.
    ///
    /// Without `sslmode`, a database on a Unix socket or a loopback address (`localhost`, `127.x.x.x`, `::1`) gets
    /// ``prefer`` and any other ``require``: readings leave the box over TLS only.
    public enum SSLMode: String, Sendable, Hashable {
        /// Plain text.
        case disable
        /// TLS when the server offers it (its certificate then verified as for ``require``), else plain text.
        case prefer
        /// TLS, the server's certificate verified against the CA (`sslrootcert=FILE`, else the system's trusted CAs)
        /// and for the host name the address gives: what libpq calls `verify-full` (taken as a synonym; libpq's own
        /// `require` checks neither).
        case require
        /// TLS, the certificate verified against the CA but not for the host name (libpq's `verify-ca`).
        case verifyCA = "verify-ca"
    }

    /// Whether `server` is this machine: `localhost`, an IPv4 address in 127.0.0.0/8, or `::1`.
    static func isLoopback(_ server: Server) -> Bool {
        let host = server.host.lowercased()
        if host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// Whether every server is reached without crossing a network: a Unix socket, or only loopback addresses.
    public var isLocal: Bool { socketDirectory != nil || servers.allSatisfy(Self.isLoopback) }

    /// The TLS mode, the CA file and its certificates, from the address's `sslmode` and `sslrootcert`.
    /// - Throws: ``HubError`` `.configuration` for an unknown mode, or a CA file that cannot be read (naming it).
    static func tls(
        mode: String?,
        rootCertificate: String?,
        local: Bool
    ) throws(HubError) -> (mode: SSLMode, file: String?, certificates: [NIOSSLCertificate]?) {
        let sslMode: SSLMode
        switch mode {
        case nil: sslMode = local ? .prefer : .require
        case "verify-full"?: sslMode = .require
        case let name?:
            guard let named = SSLMode(rawValue: name) else {
                throw HubError(
                    .configuration,
                    "sslmode '\(name)' is not disable, prefer, require, verify-ca or verify-full"
                )
            }
            sslMode = named
        }
        guard let file = rootCertificate, file != "system" else { return (sslMode, nil, nil) }
        do {
            let certificates = try NIOSSLCertificate.fromPEMFile(file)
            guard !certificates.isEmpty else {
                throw HubError(.configuration, "the database's CA file \(file) (sslrootcert) holds no certificate")
            }
            return (sslMode, file, certificates)
        } catch let error as HubError {
            throw error
        } catch {
            throw HubError(.configuration, "cannot read the database's CA file \(file) (sslrootcert): \(error)")
        }
    }

    /// The client's TLS settings: the server's certificate verified against ``rootCertificateFile``'s CAs (else
    /// the system's), and for the host name unless ``SSLMode/verifyCA``.
    var tlsConfiguration: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let rootCertificates { configuration.trustRoots = .certificates(rootCertificates) }
        if sslMode == .verifyCA { configuration.certificateVerification = .noHostnameVerification }
        return configuration
    }

    /// The warning for a link to a server on another machine that may carry readings in plain text (`sslmode`
    /// `disable` or `prefer` given for it); nil when the link is local or over TLS.
    public var plainTextWarning: String? {
        guard !isLocal else { return nil }
        let remote = servers.filter { !Self.isLoopback($0) }.map(\.description).joined(separator: ", ")
        switch sslMode {
        case .disable:
            return "the hub reaches PostgreSQL at \(remote) without TLS (sslmode=disable): readings cross the network "
                + "in plain text"
        case .prefer:
            return "the hub may reach PostgreSQL at \(remote) without TLS (sslmode=prefer: plain text when the server "
                + "offers no TLS): readings cross the network in plain text"
        case .require, .verifyCA:
            return nil
        }
    }

    /// What a failed connection to `server` says, in words: a TLS problem names the server and the CA file. Never
    /// the password (the driver's errors do not carry it).
    public func connectionProblem(_ error: any Error, at server: Server) -> String {
        let text = String(reflecting: error)
        let authority =
            rootCertificateFile.map { "the CA in \($0) (sslrootcert)" } ?? "the system's trusted CAs (no sslrootcert)"
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            return "PostgreSQL at \(server): its TLS certificate failed verification against \(authority) "
                + "(signed by another CA, expired or not valid yet)"
        }
        if text.contains("failedToValidateHostname") {
            return "PostgreSQL at \(server): its TLS certificate is not for the host name \(server.host) "
                + "(sslmode=verify-ca checks the CA alone)"
        }
        if text.contains("sslUnsupported") {
            return "PostgreSQL at \(server) offers no TLS, and sslmode=\(sslMode.rawValue) requires it (ssl = on in "
                + "postgresql.conf)"
        }
        return "PostgreSQL at \(server): \(text)"
    }
}
