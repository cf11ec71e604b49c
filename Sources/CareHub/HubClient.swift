import BridgeFoundation
import CareUploads
import Foundation
import NIOCore

/// A bridge's side of the sync protocol: posts one batch to the hub with the bridge's credential and reads the
/// receipt.
///
/// HTTPS with the system's trust roots, or a CA file's (`--hub-ca-file`, for a hub with a private CA). The
/// credential is a token read from a file and sent only in the Authorization header, or a client certificate
/// shown in the TLS handshake (its key read from a file); neither is ever part of an error.
public struct HubClient: Sendable {
    /// Why a push did not land: the hub's answer (status and its reason) or the connection's failure.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// The HTTP status, nil when there was no answer.
        public var status: UInt?
        public var description: String
        /// The hub refused the bridge's credential (401, or its client certificate in the TLS handshake):
        /// retrying cannot help.
        public var credentialRefused = false
    }

    /// What the bridge shows the hub.
    public enum Credential: Sendable {
        /// A file whose first line is the bridge's token (`carebridge hub enrol` printed it).
        case tokenFile(String)
        /// PEM files of the bridge's client certificate (`hub enrol --csr` issued it) and of its key (made on
        /// the bridge by `sync certificate-request`).
        case certificate(file: String, keyFile: String)
    }

    /// `https://host:port/`: where batches go.
    public let hub: String
    public let timeout: Duration
    let endpoint: HTTPSEndpoint
    /// nil with a client certificate.
    let token: HubToken?

    /// - Parameters:
    ///   - hub: the hub's address (`https://hub.example:8443`).
    ///   - credential: the bridge's token file, or its client certificate and key files.
    ///   - caFile: PEM certificates to trust instead of the system's.
    /// - Throws: ``Failure`` saying what is wrong with the address or the files.
    public init(
        hub: String,
        credential: Credential,
        caFile: String? = nil,
        timeout: Duration = .seconds(30)
    ) throws(Failure) {
        var clientCertificate: (certificate: String, key: String)?
        switch credential {
        case .tokenFile(let tokenFile):
            guard let text = try? String(contentsOfFile: tokenFile, encoding: .utf8),
                let line = text.split(separator: "\n").first, !line.trimmingCharacters(in: .whitespaces).isEmpty
            else {
                throw Failure(status: nil, description: "cannot read a token from \(tokenFile)")
            }
            token = HubToken(text: line.trimmingCharacters(in: .whitespaces))
        case .certificate(let file, let keyFile):
            token = nil
            clientCertificate = (file, keyFile)
        }
        self.hub = hub
        self.timeout = timeout
        do {
            endpoint = try HTTPSEndpoint(
                url: hub.hasSuffix("/") ? "\(hub)sync/v1/batches" : "\(hub)/sync/v1/batches",
                caFile: caFile,
                clientCertificate: clientCertificate
            )
        } catch {
            throw Failure(status: nil, description: "the hub address \(HTTPSEndpoint.redacted(hub)): \(error)")
        }
        if clientCertificate != nil, !endpoint.isSecure {
            throw Failure(status: nil, description: "a client certificate needs an https:// hub")
        }
    }

    /// Posts `batch`.
    /// - Returns: the hub's receipt.
    /// - Throws: ``Failure`` with the hub's status and reason, or the connection's error.
    public func push(_ batch: SyncBatch) async throws(Failure) -> SyncReceipt {
        let response: HTTPSEndpoint.Response
        do {
            response = try await endpoint.post(
                batch.serialized,
                headers: token.map { [("Authorization", "Bearer \($0.text)")] } ?? [],
                timeout: timeout
            )
        } catch {
            if token == nil, let refusal = Self.certificateRefusal(in: error.description) {
                throw Failure(
                    status: nil,
                    description: "the hub at \(HTTPSEndpoint.redacted(hub)) refused the client certificate: \(refusal)",
                    credentialRefused: true
                )
            }
            throw Failure(status: nil, description: "the hub at \(HTTPSEndpoint.redacted(hub)): \(error)")
        }
        let status = response.status
        let body = response.body
        let answer = try? JSONValue.parse(Array(body.readableBytesView))
        guard status == 200 else {
            let reason = answer?.objectValue?["error"]?.stringValue ?? "no reason given"
            throw Failure(
                status: status,
                description: "the hub answered HTTP \(status): \(reason)",
                credentialRefused: status == 401
            )
        }
        guard case .int(let received)? = answer?.objectValue?["received"] else {
            throw Failure(status: status, description: "the hub's answer is not a receipt")
        }
        let last: Int64? =
            if case .int(let value)? = answer?.objectValue?["lastSequence"] { Int64(value) } else { nil }
        var changes: [HubChange] = []
        for (index, item) in (answer?.objectValue?["changes"]?.arrayValue ?? []).enumerated() {
            do {
                changes.append(try HubChange(json: item, index: index))
            } catch {
                throw Failure(status: status, description: "the hub's answer: \(error.message)")
            }
        }
        let more = if case .bool(true)? = answer?.objectValue?["more"] { true } else { false }
        return SyncReceipt(received: received, lastSequence: last, changes: changes, more: more)
    }

    /// What a failed TLS handshake says about the client certificate, in words, from BoringSSL's alert names; nil
    /// when the failure is not about it (the connection, the hub's own certificate).
    static func certificateRefusal(in failure: String) -> String? {
        let alerts = [
            ("CERTIFICATE_EXPIRED", "it has expired (or is not valid yet); ask the hub for a new one"),
            ("UNKNOWN_CA", "it is not signed by the hub's client CA"),
            ("CERTIFICATE_REVOKED", "it was revoked"),
            ("BAD_CERTIFICATE", "the hub could not verify it"),
            ("CERTIFICATE_UNKNOWN", "the hub could not verify it"),
            ("UNSUPPORTED_CERTIFICATE", "it is not a client certificate"),
            ("HANDSHAKE_FAILURE", "the TLS handshake failed (does the hub know the client CA?)"),
        ]
        return alerts.first { failure.contains("ALERT_\($0.0)") }.map(\.1)
    }
}
