public import Foundation
import JWTKit
import NIOCore

/// SMART Backend Services (HL7 SMART App Launch 2.x, "backend-services"): the access token a FHIR server wants,
/// obtained with the client-credentials grant and a client assertion this machine signs with its private key.
///
/// The token endpoint is the one given, or the `token_endpoint` of the server's
/// `[base]/.well-known/smart-configuration` (read once). Each assertion is a JWT signed ES384 (a P-384 key) or RS384
/// (an RSA key of at least 2048 bits), as the SMART spec asks, with `kid` (the key's RFC 7638 thumbprint,
/// ``SMARTClientKey``: the same `kid` as the JWK set `carebridge fhir smart-jwks` prints for registration) in its
/// header and iss = sub = the client id, aud = the token endpoint, exp four minutes ahead (the spec's limit is five)
/// and a fresh jti. The access token is kept until shortly before its `expires_in` runs out, and fetched again then
/// or when the FHIR server refuses it (``invalidate(_:)``).
///
/// The private key is read from a file (a systemd credential) once; neither it, the assertion nor the access token
/// is ever part of an error or a log.
public actor SMARTBackendAuthorization {
    /// What is asked for: writing the resources a push sends.
    public static let defaultScope = "system/Patient.write system/Device.write system/Observation.write"

    public nonisolated let clientID: String
    /// The key's `kid`: its RFC 7638 JWK thumbprint (base64url SHA-256), what the server's JWKS registration names.
    public nonisolated let keyID: String
    /// `ES384` or `RS384`.
    public nonisolated let algorithm: String
    let keys: JWTKeyCollection
    let scope: String
    let server: HTTPSEndpoint
    let caFile: String?
    let timeout: Duration
    let now: @Sendable () -> Date
    private var tokenEndpoint: HTTPSEndpoint?
    private var cached: (token: String, renewal: Date)?
    /// Access tokens fetched so far.
    public private(set) var fetched = 0

    /// - Parameters:
    ///   - clientID: the client id the server registered for this machine.
    ///   - keyFile: the PEM private key (P-384, or RSA of at least 2048 bits) whose public key was registered.
    ///   - serverURL: the FHIR server's base (discovery is `[base]/.well-known/smart-configuration`).
    ///   - tokenURL: the token endpoint; nil: discovered.
    ///   - caFile: PEM certificates to trust for the token endpoint's and the discovery's HTTPS.
    ///   - now: the wall clock (the assertion's exp, the token's expiry).
    /// - Throws: ``UploadFailure`` naming the file or the address when the key or an address cannot be used.
    public init(
        clientID: String,
        keyFile: String,
        serverURL: String,
        tokenURL: String? = nil,
        caFile: String? = nil,
        scope: String = defaultScope,
        timeout: Duration = .seconds(30),
        now: @escaping @Sendable () -> Date = { Date() }
    ) async throws(UploadFailure) {
        let key = try SMARTClientKey(file: keyFile)
        let keys = JWTKeyCollection()
        await key.add(to: keys)
        keyID = key.keyID
        algorithm = key.algorithm
        self.keys = keys
        self.clientID = clientID
        self.scope = scope
        self.caFile = caFile
        self.timeout = timeout
        self.now = now
        do {
            server = try HTTPSEndpoint(url: serverURL, caFile: caFile, plainHTTP: .loopbackOnly)
            tokenEndpoint = try tokenURL.map { url throws(HTTPSEndpoint.Failure) in
                try HTTPSEndpoint(url: url, caFile: caFile, plainHTTP: .loopbackOnly)
            }
        } catch {
            throw UploadFailure(description: "the SMART token endpoint's address: \(error)")
        }
    }

    /// An access token: the one kept while it has time left, else a new one from the token endpoint.
    /// - Throws: ``UploadFailure``: the token endpoint's refusal of the client (``UploadFailure/isRefusal``), its
    ///   other failures (5xx and 429 with `Retry-After`, retried like an upload's), or no answer.
    public func accessToken() async throws(UploadFailure) -> String {
        if let cached, now() < cached.renewal { return cached.token }
        let endpoint = try await discoveredTokenEndpoint()
        let form = [
            ("grant_type", "client_credentials"),
            ("scope", scope),
            ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
            ("client_assertion", try await assertion(audience: endpoint.url)),
        ]
        let body = form.map { "\($0)=\(Self.formEncoded($1))" }.joined(separator: "&")
        let response: HTTPSEndpoint.Response
        do {
            response = try await endpoint.post(
                body,
                contentType: "application/x-www-form-urlencoded",
                headers: [("Accept", "application/json")],
                timeout: timeout
            )
        } catch {
            throw UploadFailure(description: "the SMART token endpoint: \(error)")
        }
        let answer = try? JSONDecoder().decode(TokenResponse.self, from: Data(response.body.readableBytesView))
        switch response.status {
        case 200..<300:
            guard let answer, let token = answer.accessToken, !token.isEmpty else {
                throw UploadFailure(description: "the SMART token endpoint at \(endpoint.target) sent no access token")
            }
            let lifetime = TimeInterval(max(answer.expiresIn ?? 300, 1))
            // Renewed before it runs out: 30 s early, or halfway through a shorter life.
            cached = (token, now().addingTimeInterval(lifetime - min(30, lifetime / 2)))
            fetched += 1
            return token
        case 400, 401, 403:
            throw UploadFailure(
                status: response.status,
                description: "the SMART token endpoint at \(endpoint.target) refused client \(clientID) (HTTP "
                    + "\(response.status) \(answer?.error ?? "")); check the client id and the key registered for it",
                refusal: true
            )
        default:
            throw UploadFailure(
                status: response.status,
                retryAfter: response.retryAfter,
                description: "the SMART token endpoint at \(endpoint.target) answered HTTP \(response.status)"
            )
        }
    }

    /// Forgets `token` (the FHIR server refused it: revoked or expired early), so that the next
    /// ``accessToken()`` fetches a new one.
    public func invalidate(_ token: String) {
        if cached?.token == token { cached = nil }
    }

    /// The token endpoint: given, or read once from the server's SMART configuration.
    private func discoveredTokenEndpoint() async throws(UploadFailure) -> HTTPSEndpoint {
        if let tokenEndpoint { return tokenEndpoint }
        let response: HTTPSEndpoint.Response
        do {
            response = try await server.get(
                server.url + "/.well-known/smart-configuration",
                headers: [("Accept", "application/json")],
                timeout: timeout
            )
        } catch {
            throw UploadFailure(description: "the FHIR server's SMART configuration: \(error)")
        }
        guard (200..<300).contains(response.status),
            let configuration = try? JSONDecoder().decode(
                Configuration.self,
                from: Data(response.body.readableBytesView)
            ),
            let url = configuration.tokenEndpoint
        else {
            throw UploadFailure(
                status: (200..<300).contains(response.status) ? nil : response.status,
                retryAfter: response.retryAfter,
                description: "the FHIR server at \(server.target) names no token endpoint in its "
                    + ".well-known/smart-configuration (HTTP \(response.status)); give the token endpoint"
            )
        }
        do {
            let endpoint = try HTTPSEndpoint(url: url, caFile: caFile, plainHTTP: .loopbackOnly)
            tokenEndpoint = endpoint
            return endpoint
        } catch {
            throw UploadFailure(description: "the SMART token endpoint's address: \(error)")
        }
    }

    /// A signed client assertion for `audience` (the token endpoint).
    private func assertion(audience: String) async throws(UploadFailure) -> String {
        let claims = ClientAssertion(
            iss: IssuerClaim(value: clientID),
            sub: SubjectClaim(value: clientID),
            aud: AudienceClaim(value: audience),
            exp: ExpirationClaim(value: now().addingTimeInterval(240)),
            jti: IDClaim(value: UUID().uuidString)
        )
        do {
            return try await keys.sign(claims, kid: JWKIdentifier(string: keyID))
        } catch {
            throw UploadFailure(description: "cannot sign the SMART client assertion (\(algorithm))")
        }
    }

    /// `application/x-www-form-urlencoded` of one value.
    static func formEncoded(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }

    /// The claims of a client assertion.
    struct ClientAssertion: JWTPayload {
        var iss: IssuerClaim
        var sub: SubjectClaim
        var aud: AudienceClaim
        var exp: ExpirationClaim
        var jti: IDClaim

        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// The token endpoint's answer (RFC 6749 §5.1, §5.2).
    struct TokenResponse: Decodable {
        var accessToken: String?
        var expiresIn: Int?
        var error: String?

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case expiresIn = "expires_in"
            case error
        }
    }

    /// What is read of `.well-known/smart-configuration`.
    struct Configuration: Decodable {
        var tokenEndpoint: String?

        enum CodingKeys: String, CodingKey { case tokenEndpoint = "token_endpoint" }
    }
}
