import BridgeFoundation
import Crypto
import Foundation

/// Posts glucose entries to one Nightscout site's API v1 (`POST /api/v1/entries`) with the site's API secret.
///
/// The secret is read from a file (its first line) and sent only as Nightscout's `api-secret` header, the SHA-1
/// hex digest of the secret (cgm-remote-monitor `lib/authorization`): neither the secret nor its digest is ever
/// part of an error or a log. HTTPS by default (the system's trust roots, or a CA file's); plain `http://` only to
/// this machine (a site on the same box).
public struct NightscoutClient: Sendable {
    /// Why an upload did not land (the receiver's answer or the connection's failure; never the credential).
    public typealias Failure = UploadFailure

    /// `host:port` of the site, for messages.
    public var site: String { endpoint.target }
    public let timeout: Duration
    let endpoint: HTTPSEndpoint
    /// SHA-1 hex of the secret: what Nightscout compares.
    let secretDigest: String

    /// - Parameters:
    ///   - url: the site's address (`https://ns.example`), without `/api/v1`.
    ///   - secretFile: a file whose first line is the site's API secret.
    ///   - caFile: PEM certificates to trust for the site's HTTPS instead of the system's.
    /// - Throws: ``Failure`` saying what is wrong with the address or the files (never their content).
    public init(
        url: String,
        secretFile: String,
        caFile: String? = nil,
        timeout: Duration = .seconds(30)
    )
        throws(Failure)
    {
        let base = url.hasSuffix("/") ? String(url.dropLast()) : url
        do {
            endpoint = try HTTPSEndpoint(url: "\(base)/api/v1/entries", caFile: caFile, plainHTTP: .loopbackOnly)
        } catch {
            throw Failure(description: "the Nightscout address: \(error)")
        }
        let line = try CredentialFile.firstLine(of: secretFile, what: "an API secret")
        secretDigest = Self.digest(line)
        self.timeout = timeout
    }

    /// The `api-secret` header's value for `secret`: its SHA-1 as lowercase hex.
    public static func digest(_ secret: String) -> String {
        Insecure.SHA1.hash(data: Data(secret.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Posts `entries` as one JSON array; any 2xx answer confirms all of them.
    /// - Throws: ``Failure`` with the site's status (401/403: the secret; 429/503 with its `Retry-After`), or the
    ///   connection's error.
    public func upload(_ entries: [NightscoutEntry]) async throws(Failure) {
        _ = try await endpoint.upload(
            JSONValue.array(entries.map(\.json)).serialized(),
            headers: [("api-secret", secretDigest), ("Accept", "application/json")],
            timeout: timeout,
            answerLimit: 4 << 20,
            receiver: "Nightscout",
            refusal: "the site refused the API secret; check the secret file (the site's API_SECRET)"
        )
    }
}
