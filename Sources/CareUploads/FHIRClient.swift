import Foundation
import NIOCore

/// Posts transaction Bundles to one FHIR server's base (`POST [base]`) with a bearer token.
///
/// The token is read from a file (its first line) and sent only in the `Authorization` header: it is never part
/// of an error or a log. HTTPS by default (the system's trust roots, or a CA file's); plain `http://` only to this
/// machine.
public struct FHIRClient: Sendable {
    /// Why an upload did not land (the receiver's answer or the connection's failure; never the credential).
    public typealias Failure = UploadFailure

    /// `host:port` of the server, for messages.
    public var server: String { endpoint.target }
    public let timeout: Duration
    let endpoint: HTTPSEndpoint
    let token: String

    /// - Parameters:
    ///   - url: the server's FHIR base (`https://fhir.example/r4`).
    ///   - tokenFile: a file whose first line is the bearer token.
    ///   - caFile: PEM certificates to trust for the server's HTTPS instead of the system's.
    /// - Throws: ``Failure`` saying what is wrong with the address or the file (never its content).
    public init(url: String, tokenFile: String, caFile: String? = nil, timeout: Duration = .seconds(60)) throws(Failure)
    {
        let base = url.hasSuffix("/") ? String(url.dropLast()) : url
        do {
            endpoint = try HTTPSEndpoint(url: base, caFile: caFile, plainHTTP: .loopbackOnly)
        } catch {
            throw Failure(description: "the FHIR server address: \(error)")
        }
        guard let text = try? String(contentsOfFile: tokenFile, encoding: .utf8),
            let line = text.split(separator: "\n").first?.trimmingCharacters(in: .whitespaces), !line.isEmpty
        else {
            throw Failure(description: "cannot read a bearer token from \(tokenFile)")
        }
        token = line
        self.timeout = timeout
    }

    /// Posts one transaction Bundle; a 2xx answer means the server applied all of it (a transaction is atomic).
    /// - Throws: ``Failure`` with the server's status (401/403: the token; 429/503 with its `Retry-After`), or the
    ///   connection's error.
    public func post(bundle: String) async throws(Failure) {
        let response: HTTPSEndpoint.Response
        do {
            response = try await endpoint.post(
                bundle,
                contentType: "application/fhir+json",
                headers: [("Authorization", "Bearer " + token), ("Accept", "application/fhir+json")],
                timeout: timeout,
                answerLimit: 16 << 20
            )
        } catch {
            throw Failure(description: "FHIR: \(error)")
        }
        let status = response.status
        guard (200..<300).contains(status) else {
            let reason: String
            switch status {
            case 401, 403: reason = "the server refused the bearer token; check the token file"
            case 429: reason = "too many requests"
            default:
                let text = String(buffer: response.body).prefix(200)
                reason = text.isEmpty ? "no reason given" : String(text)
            }
            throw Failure(
                status: status,
                retryAfter: response.retryAfter,
                description: "the FHIR server at \(server) answered HTTP \(status): \(reason)"
            )
        }
    }
}
