import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `Fixtures/nightscout_receiver.py` on the system python3: a local Nightscout site implementing the API v1 entries
/// contract (api-secret check, upsert by time and type, GET), with scripted answers for outages.
final class NightscoutReceiver: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible { var description: String }

    /// One POST as the receiver saw it: its answer and the identifiers of the entries it carried.
    struct Request: Decodable, Equatable {
        var status: Int
        var entries: [String?]
    }

    static let python = "/usr/bin/python3"
    /// Whether the receiver can run; always under `CI=true`, where a missing python3 fails the tests instead.
    static var testsEnabled: Bool {
        FileManager.default.isExecutableFile(atPath: python) || ProcessInfo.processInfo.environment["CI"] == "true"
    }

    let port: Int
    let directory: URL
    let secretFile: String
    private var child: ChildProcess?

    /// A receiver on `port` (a free loopback port when nil) that accepts the secret in `secretFile`; not started.
    init(directory: URL, secretFile: String, port: Int? = nil) throws {
        self.port = try port ?? MosquittoBroker.freeLoopbackPort()
        self.directory = directory
        self.secretFile = secretFile
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { stop() }

    var url: String { "http://127.0.0.1:\(port)" }

    /// Starts it and waits until it listens.
    func start() async throws {
        try? FileManager.default.removeItem(at: directory.appendingPathComponent("ready"))
        let script = PackageRoot.url.appendingPathComponent("Tests/CareUploadsTests/Fixtures/nightscout_receiver.py")
        let child = try ChildProcess(
            URL(fileURLWithPath: Self.python),
            [script.path, "--dir", directory.path, "--port", "\(port)", "--secret-file", secretFile]
        )
        self.child = child
        let ready = directory.appendingPathComponent("ready").path
        try await waitUntil("the Nightscout receiver listens") {
            if !child.isRunning {
                throw Failure(description: "the Nightscout receiver exited: \(child.wait().standardError)")
            }
            return FileManager.default.fileExists(atPath: ready)
        }
    }

    func stop() {
        guard let child else { return }
        self.child = nil
        child.send(SIGKILL)
        _ = child.wait()
    }

    /// Answers the next requests with these statuses (`"503"`, `"429 1"` for a Retry-After of 1 s), in order.
    func script(_ answers: [String]) throws {
        try answers.map { $0 + "\n" }.joined().write(
            to: directory.appendingPathComponent("script"),
            atomically: true,
            encoding: .utf8
        )
    }

    /// The stored entries, in the order they were first stored.
    func entries() throws -> [[String: Any]] {
        let file = directory.appendingPathComponent("entries.json")
        guard FileManager.default.fileExists(atPath: file.path) else { return [] }
        return try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [[String: Any]] ?? []
    }

    /// Every POST so far, in order.
    func requests() throws -> [Request] {
        let file = directory.appendingPathComponent("requests.jsonl")
        guard FileManager.default.fileExists(atPath: file.path) else { return [] }
        return try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map {
            try JSONDecoder().decode(Request.self, from: Data($0.utf8))
        }
    }
}
