import BridgeFoundation
import CareUploads
import Foundation
import NIOCore

/// A bridge's side of the sync protocol: posts one batch to the hub with the bridge's token and reads the receipt.
///
/// HTTPS with the system's trust roots, or a CA file's (`--hub-ca-file`, for a hub with a private CA). The token
/// is read from a file and sent only in the Authorization header; it is never part of an error.
public struct HubClient: Sendable {
    /// Why a push did not land: the hub's answer (status and its reason) or the connection's failure.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// The HTTP status, nil when there was no answer.
        public var status: UInt?
        public var description: String
    }

    /// `https://host:port/`: where batches go.
    public let hub: String
    public let timeout: Duration
    let endpoint: HTTPSEndpoint
    let token: HubToken

    /// - Parameters:
    ///   - hub: the hub's address (`https://hub.example:8443`).
    ///   - tokenFile: a file whose first line is the bridge's token (`carebridge hub enrol` printed it).
    ///   - caFile: PEM certificates to trust instead of the system's.
    /// - Throws: ``Failure`` saying what is wrong with the address or the files.
    public init(hub: String, tokenFile: String, caFile: String? = nil, timeout: Duration = .seconds(30)) throws(Failure)
    {
        guard let text = try? String(contentsOfFile: tokenFile, encoding: .utf8),
            let line = text.split(separator: "\n").first, !line.trimmingCharacters(in: .whitespaces).isEmpty
        else {
            throw Failure(status: nil, description: "cannot read a token from \(tokenFile)")
        }
        token = HubToken(text: line.trimmingCharacters(in: .whitespaces))
        self.hub = hub
        self.timeout = timeout
        do {
            endpoint = try HTTPSEndpoint(
                url: hub.hasSuffix("/") ? "\(hub)sync/v1/batches" : "\(hub)/sync/v1/batches",
                caFile: caFile
            )
        } catch {
            throw Failure(status: nil, description: "the hub address \(HTTPSEndpoint.redacted(hub)): \(error)")
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
                headers: [("Authorization", "Bearer \(token.text)")],
                timeout: timeout
            )
        } catch {
            throw Failure(status: nil, description: "the hub at \(HTTPSEndpoint.redacted(hub)): \(error)")
        }
        let status = response.status
        let body = response.body
        let answer = try? JSONValue.parse(Array(body.readableBytesView))
        guard status == 200 else {
            let reason = answer?.objectValue?["error"]?.stringValue ?? "no reason given"
            throw Failure(status: status, description: "the hub answered HTTP \(status): \(reason)")
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
}
