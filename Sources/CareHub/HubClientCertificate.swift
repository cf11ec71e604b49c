import Crypto
public import Foundation

/// A bridge's client certificate as the hub issued it: the PEM the bridge gets, and the SHA-256 of its DER, which
/// is what the hub keeps and looks the bridge up by (a new certificate for the bridge replaces it, so the old one
/// stops at once, even when it was made for the same key).
public struct HubClientCertificate: Sendable, Hashable {
    public var pem: String
    /// SHA-256 of the certificate's DER, hex.
    public var fingerprint: String
    public var validUntil: Date

    public init(pem: String, fingerprint: String, validUntil: Date) {
        self.pem = pem
        self.fingerprint = fingerprint
        self.validUntil = validUntil
    }

    /// The SHA-256 of a certificate's DER bytes, hex.
    public static func fingerprint(der: some Sequence<UInt8>) -> String {
        SHA256.hash(data: Array(der)).map { String(format: "%02x", $0) }.joined()
    }
}
