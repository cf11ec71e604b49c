import Foundation

/// Posts transaction Bundles to one FHIR server's base (`POST [base]`) with a bearer token: one read from a file,
/// or an access token from SMART Backend Services (``SMARTBackendAuthorization``).
///
/// The token is sent only in the `Authorization` header: it is never part of an error or a log. HTTPS by default
/// (the system's trust roots, or a CA file's); plain `http://` only to this machine.
public struct FHIRClient: Sendable {
    /// Why an upload did not land (the receiver's answer or the connection's failure; never the credential).
    public typealias Failure = UploadFailure

    /// Where the bearer token comes from.
    public enum Authorization: Sendable {
        /// A token read from a file once.
        case token(String)
        /// SMART Backend Services' access tokens.
        case smart(SMARTBackendAuthorization)
    }

    /// `host:port` of the server, for messages.
    public var server: String { endpoint.target }
    public let timeout: Duration
    public let authorization: Authorization
    let endpoint: HTTPSEndpoint

    /// A client with the bearer token in `tokenFile` (its first line).
    /// - Throws: ``Failure`` saying what is wrong with the address or the file (never its content).
    public init(url: String, tokenFile: String, caFile: String? = nil, timeout: Duration = .seconds(60)) throws(Failure)
    {
        let token = try CredentialFile.firstLine(of: tokenFile, what: "a bearer token")
        try self.init(url: url, authorization: .token(token), caFile: caFile, timeout: timeout)
    }

    /// - Parameters:
    ///   - url: the server's FHIR base (`https://fhir.example/r4`).
    ///   - authorization: the bearer token or SMART Backend Services.
    ///   - caFile: PEM certificates to trust for the server's HTTPS instead of the system's.
    /// - Throws: ``Failure`` saying what is wrong with the address.
    public init(
        url: String,
        authorization: Authorization,
        caFile: String? = nil,
        timeout: Duration = .seconds(60)
    ) throws(Failure) {
        let base = url.hasSuffix("/") ? String(url.dropLast()) : url
        do {
            endpoint = try HTTPSEndpoint(url: base, caFile: caFile, plainHTTP: .loopbackOnly)
        } catch {
            throw Failure(description: "the FHIR server address: \(error)")
        }
        self.authorization = authorization
        self.timeout = timeout
    }

    /// Posts one transaction Bundle; a 2xx answer means the server applied all of it (a transaction is atomic). With
    /// SMART, an access token the server refuses is fetched again once before the refusal counts.
    /// - Throws: ``Failure`` with the server's status (401/403: the token; 429/503 with its `Retry-After`), the
    ///   token endpoint's failure, or the connection's error.
    public func post(bundle: String) async throws(Failure) {
        switch authorization {
        case .token(let token):
            try await post(bundle, token: token, refusal: "the server refused the bearer token; check the token file")
        case .smart(let smart):
            let refusal = "the server refused the access token of its SMART token endpoint"
            let token = try await smart.accessToken()
            do {
                try await post(bundle, token: token, refusal: refusal)
            } catch  where error.isRefusal {
                await smart.invalidate(token)
                try await post(bundle, token: try await smart.accessToken(), refusal: refusal)
            }
        }
    }

    private func post(_ bundle: String, token: String, refusal: String) async throws(Failure) {
        _ = try await endpoint.upload(
            bundle,
            contentType: "application/fhir+json",
            headers: [("Authorization", "Bearer " + token), ("Accept", "application/fhir+json")],
            timeout: timeout,
            answerLimit: 16 << 20,
            receiver: "the FHIR server",
            refusal: refusal
        )
    }
}
