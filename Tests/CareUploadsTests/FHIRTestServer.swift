import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `Fixtures/fhir_server.py` on the system python3: a local FHIR server that processes transaction Bundles
/// (conditional creates, conditional updates, bearer token), records what it stores and every request, and answers
/// scripted 5xx/429 for outages. Stopped and started again it keeps what it stored.
final class FHIRTestServer: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible { var description: String }

    /// One stored resource.
    struct Stored {
        var type: String
        var id: String
        var resource: [String: Any]
    }

    let port: Int
    let directory: URL
    let tokenFile: String
    private var child: ChildProcess?

    init(directory: URL, tokenFile: String) throws {
        self.port = try MosquittoBroker.freeLoopbackPort()
        self.directory = directory
        self.tokenFile = tokenFile
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { stop() }

    var url: String { "http://127.0.0.1:\(port)/fhir" }

    /// Starts it (again) and waits until it listens.
    func start() async throws {
        try? FileManager.default.removeItem(at: directory.appendingPathComponent("ready"))
        let script = PackageRoot.url.appendingPathComponent("Tests/CareUploadsTests/Fixtures/fhir_server.py")
        let child = try ChildProcess(
            URL(fileURLWithPath: NightscoutReceiver.python),
            [script.path, "--dir", directory.path, "--port", "\(port)", "--token-file", tokenFile]
        )
        self.child = child
        let ready = directory.appendingPathComponent("ready").path
        try await waitUntil("the FHIR test server listens") {
            if !child.isRunning {
                throw Failure(description: "the FHIR test server exited: \(child.wait().standardError)")
            }
            return FileManager.default.fileExists(atPath: ready)
        }
    }

    /// Takes it down (connections refused until ``start()``).
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

    /// Every stored resource, in creation order.
    func resources() throws -> [Stored] {
        let file = directory.appendingPathComponent("resources.json")
        guard FileManager.default.fileExists(atPath: file.path) else { return [] }
        let list = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [[String: Any]] ?? []
        return list.compactMap { item in
            guard let type = item["type"] as? String, let id = item["id"] as? String,
                let resource = item["resource"] as? [String: Any]
            else { return nil }
            return Stored(type: type, id: id, resource: resource)
        }
    }

    /// The statuses of every request so far, in order.
    func requestStatuses() throws -> [Int] {
        let file = directory.appendingPathComponent("requests.jsonl")
        guard FileManager.default.fileExists(atPath: file.path) else { return [] }
        return try String(contentsOf: file, encoding: .utf8).split(separator: "\n").compactMap {
            (try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["status"] as? Int
        }
    }
}
