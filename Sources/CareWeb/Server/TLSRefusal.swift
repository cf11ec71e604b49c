public import Foundation
import NIOSSL
import SwiftASN1
public import X509

/// Why the server refused a TLS handshake, in words an operator can act on: from BoringSSL's error names and, when a
/// client certificate failed verification, from that certificate checked against the client CA.
///
/// BoringSSL's error says only `CERTIFICATE_VERIFY_FAILED`; which check failed is read off the certificate the client
/// showed (``verificationFailure(of:authorities:now:)``) after BoringSSL refused it. Verification itself stays
/// BoringSSL's. Of a certificate, only the subject's common name (the bridge's name) and its validity dates are ever
/// put into words.
public enum TLSRefusal: Sendable, Hashable {
    /// The client showed no certificate, and one is required.
    case noCertificate
    /// The client certificate is not signed by the client CA.
    case otherAuthority(commonName: String?)
    /// The client CA signed the certificate, but it ran out at `notAfter`.
    case expired(commonName: String?, notAfter: Date)
    /// The client CA signed the certificate, but it is valid only from `notBefore`.
    case notYetValid(commonName: String?, notBefore: Date)
    /// The client CA signed the certificate and it is within its dates, but it failed another check (its key usage,
    /// its extensions).
    case otherCheck(commonName: String?)
    /// The client certificate failed verification, and it could not be read to say why.
    case unverified
    /// Plain HTTP to the TLS port.
    case plainHTTP
    /// Something other than TLS.
    case notTLS
    /// The client does not trust the server's certificate (unknown CA).
    case serverCertificateUnknownCA
    /// The client does not accept the server's certificate.
    case serverCertificateRefused
    case noSharedCipher
    case noSharedVersion
    /// The client closed the connection during the handshake.
    case closed
    /// Anything else: the error's own description (which names no certificate's contents).
    case other(String)

    /// The refusal `error` says; for a client certificate that failed verification, which check failed.
    /// - Parameters:
    ///   - clientCertificate: the certificate the client showed, if it can be read (asked only when needed).
    ///   - authorities: the client CA file's certificates.
    ///   - now: the time verification ran at.
    public init(
        _ error: any Error,
        clientCertificate: () -> Certificate?,
        authorities: [Certificate],
        now: Date
    ) {
        let text = String(describing: error)
        let names: [(String, TLSRefusal)] = [
            ("PEER_DID_NOT_RETURN_A_CERTIFICATE", .noCertificate),
            ("HTTP_REQUEST", .plainHTTP),
            ("WRONG_VERSION_NUMBER", .notTLS),
            ("ALERT_UNKNOWN_CA", .serverCertificateUnknownCA),
            ("ALERT_BAD_CERTIFICATE", .serverCertificateRefused),
            ("ALERT_CERTIFICATE_UNKNOWN", .serverCertificateRefused),
            ("NO_SHARED_CIPHER", .noSharedCipher),
            ("UNSUPPORTED_PROTOCOL", .noSharedVersion),
        ]
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            self = Self.verificationFailure(of: clientCertificate(), authorities: authorities, now: now)
        } else if let (_, refusal) = names.first(where: { text.contains($0.0) }) {
            self = refusal
        } else if case NIOSSLError.uncleanShutdown? = error as? NIOSSLError {
            self = .closed
        } else {
            self = .other(text)
        }
    }

    /// Which check a client certificate BoringSSL refused fails: signed by none of `authorities`, else expired, else
    /// not valid yet, else another.
    public static func verificationFailure(
        of certificate: Certificate?,
        authorities: [Certificate],
        now: Date
    ) -> TLSRefusal {
        guard let certificate else { return .unverified }
        let name = commonName(of: certificate)
        let signed = authorities.contains { authority in
            authority.subject == certificate.issuer
                && authority.publicKey.isValidSignature(certificate.signature, for: certificate)
        }
        if !signed { return .otherAuthority(commonName: name) }
        if now > certificate.notValidAfter { return .expired(commonName: name, notAfter: certificate.notValidAfter) }
        if now < certificate.notValidBefore {
            return .notYetValid(commonName: name, notBefore: certificate.notValidBefore)
        }
        return .otherCheck(commonName: name)
    }

    /// The subject's common name, letters, digits and `-._@ ` only (anything else becomes `?`; at most 64 characters),
    /// so that a name a stranger chose cannot forge a log line.
    static func commonName(of certificate: Certificate) -> String? {
        for name in certificate.subject {
            for attribute in name where attribute.type == .RDNAttributeType.commonName {
                guard let text = String(attribute.value) else { return nil }
                let kept = text.unicodeScalars.prefix(64).map { scalar -> Character in
                    Self.safeInNames.contains(scalar) ? Character(scalar) : "?"
                }
                return String(kept)
            }
        }
        return nil
    }

    /// The characters a common name keeps in words.
    private static let safeInNames = Set(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._@ ".unicodeScalars
    )

    /// The reason in words.
    public var words: String {
        switch self {
        case .noCertificate: "the client showed no certificate, and one is required"
        case .otherAuthority(let name): "the client certificate\(Self.of(name)) is not signed by the client CA"
        case .expired(let name, let notAfter):
            "the client certificate\(Self.of(name)) has expired: valid until \(notAfter.formatted(.iso8601))"
        case .notYetValid(let name, let notBefore):
            "the client certificate\(Self.of(name)) is not valid yet: valid from \(notBefore.formatted(.iso8601))"
        case .otherCheck(let name):
            "the client certificate\(Self.of(name)) failed verification, though the client CA signed it and it is "
                + "within its dates (its key usage or extensions?)"
        case .unverified: "the client certificate failed verification"
        case .plainHTTP: "plain HTTP to the TLS port"
        case .notTLS: "not TLS (plain HTTP to the TLS port?)"
        case .serverCertificateUnknownCA: "the client does not trust the server's certificate (unknown CA)"
        case .serverCertificateRefused: "the client does not accept the server's certificate"
        case .noSharedCipher: "no cipher in common with the client"
        case .noSharedVersion: "no TLS version in common with the client"
        case .closed: "the client closed the connection during the handshake"
        case .other(let text): "the handshake failed: \(text)"
        }
    }

    /// A short name for metrics (`carebridge_hub_tls_refused_total{reason}`): one of a fixed set.
    public var label: String {
        switch self {
        case .noCertificate: "no_certificate"
        case .otherAuthority: "other_ca"
        case .expired: "expired"
        case .notYetValid: "not_yet_valid"
        case .otherCheck, .unverified: "certificate_invalid"
        case .plainHTTP, .notTLS: "not_tls"
        case .serverCertificateUnknownCA, .serverCertificateRefused: "server_certificate_refused"
        case .noSharedCipher, .noSharedVersion: "no_shared_parameters"
        case .closed: "closed"
        case .other: "other"
        }
    }

    private static func of(_ name: String?) -> String { name.map { " of '\($0)'" } ?? "" }
}
