package import Foundation

/// `Tests/CareUploadsTests/Fixtures/fhir_server.py` (a ``TestReceiver``): a local FHIR server that processes transaction Bundles
/// (conditional creates, conditional updates, bearer token), records what it stores and every request, and answers
/// scripted 5xx/429 for outages; with a SMART client registered, also a token endpoint that verifies the client's
/// signed JWT (SMART Backend Services). Stopped and started again it keeps what it stored.
package final class FHIRTestServer: Sendable {
    /// One stored resource.
    package struct Stored {
        package var type: String
        package var id: String
        package var resource: [String: Any]
    }

    /// A SMART Backend Services client the server knows.
    package struct SMARTClient {
        package var id: String
        /// The PEM file of the client's public key.
        package var publicKeyFile: String

        package init(id: String, publicKeyFile: String) {
            self.id = id
            self.publicKeyFile = publicKeyFile
        }
    }

    package let receiver: TestReceiver
    package var port: Int { receiver.port }
    package var url: String { "http://127.0.0.1:\(port)/fhir" }
    /// The token endpoint (with a SMART client).
    package var tokenURL: String { "http://127.0.0.1:\(port)/auth/token" }

    /// - Parameters:
    ///   - tokenFile: a file whose first line is a bearer token the server accepts.
    ///   - smart: the SMART client whose signed JWTs its token endpoint accepts.
    ///   - tokenLifetime: seconds an access token of the token endpoint lives.
    package init(directory: URL, tokenFile: String?, smart: SMARTClient? = nil, tokenLifetime: Int = 300) throws {
        var arguments = ["--token-lifetime", "\(tokenLifetime)"]
        if let tokenFile { arguments += ["--token-file", tokenFile] }
        if let smart { arguments += ["--smart-client-id", smart.id, "--smart-public-key", smart.publicKeyFile] }
        receiver = try TestReceiver(script: "fhir_server.py", arguments: arguments, directory: directory)
    }

    /// Starts it (again) and waits until it listens.
    package func start() async throws { try await receiver.start() }

    /// Takes it down (connections refused until ``start()``).
    package func stop() { receiver.stop() }

    /// Answers the next requests with these (`"503"`, `"429 1"` for a Retry-After of 1 s, `"lost"`, `"expire"`),
    /// in order.
    package func script(_ answers: [String]) throws { try receiver.script(answers) }

    /// Every stored resource, in creation order.
    package func resources() throws -> [Stored] {
        let list = try receiver.json("resources.json", empty: []) as? [[String: Any]] ?? []
        return list.compactMap { item in
            guard let type = item["type"] as? String, let id = item["id"] as? String,
                let resource = item["resource"] as? [String: Any]
            else { return nil }
            return Stored(type: type, id: id, resource: resource)
        }
    }

    /// The statuses of every Bundle post so far, in order.
    package func requestStatuses() throws -> [Int] {
        try statuses("requests.jsonl")
    }

    /// The statuses of every token request so far, in order.
    package func tokenStatuses() throws -> [Int] {
        try statuses("tokens.jsonl")
    }

    private func statuses(_ name: String) throws -> [Int] {
        try receiver.jsonLines(name).compactMap {
            (try JSONSerialization.jsonObject(with: $0) as? [String: Any])?["status"] as? Int
        }
    }
}
