import Foundation
import TestSupport

/// `Fixtures/nightscout_receiver.py` (a ``TestReceiver``): a local Nightscout site implementing the API v1 entries
/// contract (api-secret check, upsert by time and type, GET), with scripted answers for outages.
final class NightscoutReceiver: Sendable {
    /// One POST as the receiver saw it: its answer and the identifiers of the entries it carried.
    struct Request: Decodable, Equatable {
        var status: Int
        var entries: [String?]
    }

    let receiver: TestReceiver
    let secretFile: String
    var port: Int { receiver.port }
    var url: String { "http://127.0.0.1:\(port)" }

    /// A receiver on `port` (a free loopback port when nil) that accepts the secret in `secretFile`; not started.
    init(directory: URL, secretFile: String, port: Int? = nil) throws {
        self.secretFile = secretFile
        receiver = try TestReceiver(
            script: "nightscout_receiver.py",
            arguments: ["--secret-file", secretFile],
            directory: directory,
            port: port
        )
    }

    /// Starts it and waits until it listens.
    func start() async throws { try await receiver.start() }

    func stop() { receiver.stop() }

    /// Answers the next requests with these statuses (`"503"`, `"429 1"` for a Retry-After of 1 s), in order.
    func script(_ answers: [String]) throws { try receiver.script(answers) }

    /// The stored entries, in the order they were first stored.
    func entries() throws -> [[String: Any]] {
        try receiver.json("entries.json", empty: []) as? [[String: Any]] ?? []
    }

    /// Every POST so far, in order.
    func requests() throws -> [Request] {
        try receiver.jsonLines("requests.jsonl").map { try JSONDecoder().decode(Request.self, from: $0) }
    }
}
