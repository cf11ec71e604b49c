public import BridgeFoundation
import Crypto
import Foundation
import JWTKit

/// A SMART Backend Services client's key, read from its PEM private key (P-384 for ES384, RSA of at least 2048
/// bits for RS384): what signs the client assertions (``SMARTBackendAuthorization``) and the public JWK set a FHIR
/// server's administrator registers for the client (`carebridge fhir smart-jwks`).
///
/// The `kid` is the public key's RFC 7638 JWK thumbprint (base64url SHA-256 of its required members in
/// lexicographic order), computed from the same members the JWK set prints, so the header of every assertion names
/// the key the server registered. The private parameters never leave this value: ``jwks`` holds only public ones.
public struct SMARTClientKey: Sendable {
    /// `ES384` or `RS384`.
    public let algorithm: String
    /// The key's `kid`: its RFC 7638 thumbprint.
    public let keyID: String
    /// The public JWK's required members (RFC 7638 §3.2), in lexicographic order: `crv`, `kty`, `x`, `y` or `e`,
    /// `kty`, `n`.
    let publicMembers: [(name: String, value: String)]
    let privateKey: PrivateKey

    enum PrivateKey: Sendable {
        case ecdsa(ES384PrivateKey)
        case rsa(JWTKit.Insecure.RSA.PrivateKey)
    }

    /// Reads the key from `file`.
    /// - Throws: ``UploadFailure`` naming the file when it cannot be read or holds no usable private key (never
    ///   what it holds).
    public init(file: String) throws(UploadFailure) {
        let pem = try CredentialFile.contents(of: file, what: "a private key")
        if let key = try? ES384PrivateKey(pem: pem), let (x, y) = key.parameters {
            self.init(algorithm: "ES384", members: [("crv", "P-384"), ("kty", "EC"), ("x", x), ("y", y)], .ecdsa(key))
        } else if let key = try? JWTKit.Insecure.RSA.PrivateKey(pem: pem),
            let (modulus, exponent) = try? key.publicKey.getKeyPrimitives()
        {
            self.init(
                algorithm: "RS384",
                members: [("e", Self.base64URL(exponent)), ("kty", "RSA"), ("n", Self.base64URL(modulus))],
                .rsa(key)
            )
        } else {
            throw UploadFailure(
                description: "\(file) holds no P-384 or RSA (2048 bits or more) private key in PEM form "
                    + "(make one with `openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-384`)"
            )
        }
    }

    private init(algorithm: String, members: [(name: String, value: String)], _ key: PrivateKey) {
        self.algorithm = algorithm
        publicMembers = members
        privateKey = key
        keyID = Self.thumbprint(members)
    }

    /// The JWK set to register with the FHIR server (SMART App Launch, client-confidential-asymmetric): one key
    /// with its public parameters, `kid`, `alg` and `key_ops` `["verify"]`.
    public var jwks: JSONValue {
        var key = JSONObject()
        for member in publicMembers { key[member.name] = .string(member.value) }
        key["alg"] = .string(algorithm)
        key["kid"] = .string(keyID)
        key["key_ops"] = .array([.string("verify")])
        return .object(["keys": .array([.object(key)])])
    }

    /// Adds the private key to `keys` under ``keyID``, for signing.
    func add(to keys: JWTKeyCollection) async {
        switch privateKey {
        case .ecdsa(let key): await keys.add(ecdsa: key, kid: JWKIdentifier(string: keyID))
        case .rsa(let key): await keys.add(rsa: key, digestAlgorithm: .sha384, kid: JWKIdentifier(string: keyID))
        }
    }

    /// RFC 7638: base64url SHA-256 of the required members as compact JSON, in the given (lexicographic) order.
    static func thumbprint(_ members: [(name: String, value: String)]) -> String {
        let canonical = "{" + members.map { "\"\($0.name)\":\"\($0.value)\"" }.joined(separator: ",") + "}"
        return base64URL(Data(SHA256.hash(data: Data(canonical.utf8))))
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
