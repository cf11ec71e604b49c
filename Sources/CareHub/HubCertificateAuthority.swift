import Crypto
public import Foundation
import SwiftASN1
import X509

/// The hub's client CA: it signs bridges' certificate requests (`carebridge hub enrol --csr`), and `hub serve
/// --client-ca` trusts what it signed. Its key stays with the hub's operator; a bridge's key never comes here.
public struct HubCertificateAuthority: Sendable {
    let certificate: Certificate
    let key: Certificate.PrivateKey

    /// Loads the CA from its PEM files.
    /// - Throws: ``HubError`` `.configuration` naming the file that cannot be read or used (never its content).
    public init(certificateFile: String, keyFile: String) throws(HubError) {
        do {
            certificate = try Certificate(pemEncoded: try String(contentsOfFile: certificateFile, encoding: .utf8))
        } catch {
            throw HubError(.configuration, "cannot read the client CA certificate \(certificateFile)")
        }
        do {
            key = try Certificate.PrivateKey(pemEncoded: try String(contentsOfFile: keyFile, encoding: .utf8))
        } catch {
            throw HubError(.configuration, "cannot read the client CA key \(keyFile) (a PEM private key)")
        }
        guard key.publicKey == certificate.publicKey else {
            throw HubError(.configuration, "the client CA key \(keyFile) is not the key of \(certificateFile)")
        }
    }

    init(certificate: Certificate, key: Certificate.PrivateKey) {
        self.certificate = certificate
        self.key = key
    }

    /// A new self-signed CA (P-256) named `name`, valid for `days` from `now`.
    /// - Returns: the CA and its certificate and key as PEM.
    public static func create(
        name: String,
        days: Int,
        now: Date = Date()
    ) throws(HubError) -> (authority: HubCertificateAuthority, certificatePEM: String, keyPEM: String) {
        let key = Certificate.PrivateKey(P256.Signing.PrivateKey())
        do {
            let subject = try DistinguishedName { CommonName(name) }
            let certificate = try Certificate(
                version: .v3,
                serialNumber: Certificate.SerialNumber(),
                publicKey: key.publicKey,
                notValidBefore: now.addingTimeInterval(-300),
                notValidAfter: now.addingTimeInterval(Double(days) * 86_400),
                issuer: subject,
                subject: subject,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                    Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                },
                issuerPrivateKey: key
            )
            return (
                HubCertificateAuthority(certificate: certificate, key: key),
                try certificate.serializeAsPEM().pemString + "\n",
                try key.serializeAsPEM().pemString + "\n"
            )
        } catch {
            throw HubError(.invalid, "cannot make the client CA \(name)", cause: error)
        }
    }

    /// Makes a new CA (``create(name:days:now:)``) and writes its key (0600, never over an existing file) and
    /// certificate.
    /// - Throws: ``HubError`` `.configuration` naming a file that cannot be written.
    public static func create(name: String, days: Int, certificateFile: String, keyFile: String) throws(HubError) {
        let made = try create(name: name, days: days)
        try PEMFile.write(made.keyPEM, to: keyFile, what: "the client CA key", secret: true)
        try PEMFile.write(made.certificatePEM, to: certificateFile, what: "the client CA certificate", secret: false)
    }

    /// Signs a bridge's request: a client certificate for `bridge` (its common name, whatever the request asked),
    /// valid from `validFrom` until `validUntil`, for the request's public key.
    /// - Throws: ``HubError`` `.invalid` when the request is not PEM or its signature does not check out (whoever
    ///   made it does not hold its key).
    public func issue(
        requestPEM: String,
        bridge: String,
        validFrom: Date,
        validUntil: Date
    ) throws(HubError) -> HubClientCertificate {
        let request: CertificateSigningRequest
        do {
            request = try CertificateSigningRequest(pemEncoded: requestPEM)
        } catch {
            throw HubError(.invalid, "the certificate request for bridge \(bridge) is not a PEM CERTIFICATE REQUEST")
        }
        guard request.publicKey.isValidSignature(request.signature, for: request) else {
            throw HubError(.invalid, "the certificate request for bridge \(bridge) is not signed by its own key")
        }
        do {
            let issued = try Certificate(
                version: .v3,
                serialNumber: Certificate.SerialNumber(),
                publicKey: request.publicKey,
                notValidBefore: validFrom,
                notValidAfter: validUntil,
                issuer: certificate.subject,
                subject: try DistinguishedName { CommonName(bridge) },
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                    try ExtendedKeyUsage([.clientAuth])
                },
                issuerPrivateKey: key
            )
            var serializer = DER.Serializer()
            try serializer.serialize(issued)
            return HubClientCertificate(
                pem: try issued.serializeAsPEM().pemString + "\n",
                fingerprint: HubClientCertificate.fingerprint(der: serializer.serializedBytes),
                validUntil: validUntil
            )
        } catch {
            throw HubError(.invalid, "cannot sign the certificate of bridge \(bridge)", cause: error)
        }
    }
}
