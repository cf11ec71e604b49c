import Crypto
import SwiftASN1
import X509

/// A bridge's half of client-certificate enrolment: a new P-256 key, made and kept on the bridge, and a certificate
/// signing request for it, which goes to the hub's operator (`carebridge hub enrol --csr`). The key never leaves
/// the bridge; the request carries only the public key and the bridge's name, signed with the key (so the hub
/// knows the requester holds it).
public struct HubCertificateRequest: Sendable {
    /// The private key, PEM (PKCS #8): the bridge's secret, written owner-only.
    public var keyPEM: String
    /// The request, PEM (`CERTIFICATE REQUEST`).
    public var requestPEM: String

    /// Makes a key and a request naming `bridge` (its common name).
    /// - Throws: ``HubError`` `.invalid` when the request cannot be made.
    public init(bridge: String) throws(HubError) {
        let key = P256.Signing.PrivateKey()
        do {
            let request = try CertificateSigningRequest(
                version: .v1,
                subject: try DistinguishedName { CommonName(bridge) },
                privateKey: Certificate.PrivateKey(key),
                attributes: CertificateSigningRequest.Attributes(),
                signatureAlgorithm: .ecdsaWithSHA256
            )
            requestPEM = try request.serializeAsPEM().pemString + "\n"
        } catch {
            throw HubError(.invalid, "cannot make a certificate request for bridge \(bridge)", cause: error)
        }
        keyPEM = key.pemRepresentation + "\n"
    }

    /// Writes the key (mode 0600, created new: an existing key is never overwritten) and the request.
    /// - Throws: ``HubError`` `.configuration` naming the file that cannot be written.
    public func write(key: String, request: String) throws(HubError) {
        try PEMFile.write(keyPEM, to: key, what: "the bridge's key", secret: true)
        try PEMFile.write(requestPEM, to: request, what: "the certificate request", secret: false)
    }
}
