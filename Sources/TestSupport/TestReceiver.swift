package import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One of the Python test receivers in `Fixtures/` (`fhir_server.py`, `nightscout_receiver.py`, both built on
/// `test_receiver.py`) on the system python3: started on a free loopback port with a directory of its own, waited
/// for until it writes `ready`, scripted through its `script` file, its requests read from `requests.jsonl`.
/// Stopped and started again it keeps its directory (and what a receiver stores there).
package final class TestReceiver: @unchecked Sendable {
    package struct Failure: Error, CustomStringConvertible { package var description: String }

    package static let python = "/usr/bin/python3"
    /// Whether the receivers can run; always under `CI=true`, where a missing python3 fails the tests instead.
    package static var testsEnabled: Bool {
        FileManager.default.isExecutableFile(atPath: python) || ProcessInfo.processInfo.environment["CI"] == "true"
    }

    /// `fhir_server.py`, `nightscout_receiver.py`.
    package let script: String
    /// Its options besides `--dir` and `--port`.
    package let arguments: [String]
    package let port: Int
    package let directory: URL
    private var child: ChildProcess?

    /// A receiver running `Fixtures/<script> arguments…` on `port` (a free loopback port when nil); not started.
    package init(script: String, arguments: [String], directory: URL, port: Int? = nil) throws {
        self.script = script
        self.arguments = arguments
        self.port = try port ?? MosquittoBroker.freeLoopbackPort()
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { stop() }

    /// Starts it (again) and waits until it listens.
    package func start() async throws {
        try? FileManager.default.removeItem(at: directory.appendingPathComponent("ready"))
        let path = PackageRoot.url.appendingPathComponent("Tests/CareUploadsTests/Fixtures/\(script)").path
        let child = try ChildProcess(
            URL(fileURLWithPath: Self.python),
            [path, "--dir", directory.path, "--port", "\(port)"] + arguments
        )
        self.child = child
        let ready = directory.appendingPathComponent("ready").path
        try await waitUntil("\(script) listens") {
            if !child.isRunning {
                throw Failure(description: "\(script) exited: \(child.wait().standardError)")
            }
            return FileManager.default.fileExists(atPath: ready)
        }
    }

    /// Takes it down (connections refused until ``start()``).
    package func stop() {
        guard let child else { return }
        self.child = nil
        child.send(SIGKILL)
        _ = child.wait()
    }

    /// Answers the next requests with these (`"503"`, `"429 1"` for a Retry-After of 1 s, or a word the receiver
    /// knows), in order.
    package func script(_ answers: [String]) throws {
        try answers.map { $0 + "\n" }.joined().write(
            to: directory.appendingPathComponent("script"),
            atomically: true,
            encoding: .utf8
        )
    }

    /// The JSON file `name` the receiver wrote, or `empty` when it wrote none yet.
    package func json(_ name: String, empty: Any) throws -> Any {
        let file = directory.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: file.path) else { return empty }
        return try JSONSerialization.jsonObject(with: Data(contentsOf: file))
    }

    /// The lines of the JSON Lines file `name` (`requests.jsonl`), in order; none when it wrote none yet.
    package func jsonLines(_ name: String) throws -> [Data] {
        let file = directory.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: file.path) else { return [] }
        return try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map { Data($0.utf8) }
    }
}
