import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `carebridge serve --listen 127.0.0.1:0` as a child process, as a user starts it: its output goes to files (read
/// while it runs, for the address it prints), SIGTERM stops it.
final class CareAppServer: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let process = Process()
    let stdoutURL: URL
    let stderrURL: URL
    /// `http://127.0.0.1:PORT`, once ``start(store:directory:environment:)`` returned.
    private(set) var url = ""

    private init(arguments: [String], directory: URL, environment: [String: String]) throws {
        let tag = UUID().uuidString.prefix(6)
        stdoutURL = directory.appendingPathComponent("serve-\(tag).out")
        stderrURL = directory.appendingPathComponent("serve-\(tag).err")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        process.executableURL = PackageRoot.carebridgeExecutable
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        for (key, value) in environment { merged[key] = value }
        process.environment = merged
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// Starts the app on `store` and waits until it prints the address it listens on.
    /// - Throws: ``Failure`` when it exits first or prints nothing within a minute.
    static func start(
        store: String,
        directory: URL,
        environment: [String: String]
    ) async throws -> CareAppServer {
        let server = try CareAppServer(
            arguments: ["serve", "--listen", "127.0.0.1:0", "--store", store],
            directory: directory,
            environment: environment
        )
        let prefix = "care app listening on "
        try await waitUntil("carebridge serve prints its address") {
            server.stdout.contains(prefix) || !server.process.isRunning
        }
        guard let line = server.stdout.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else {
            throw Failure(description: "carebridge serve exited without listening:\n\(server.stderr)")
        }
        server.url = String(line.dropFirst(prefix.count))
        return server
    }

    var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    /// Sends SIGTERM and waits for the exit.
    /// - Returns: the exit status (a signal's number when it was killed: only after a minute without exiting).
    func stop() async throws -> (status: Int32, exited: Bool) {
        kill(process.processIdentifier, SIGTERM)
        let exited = await eventually(timeout: .seconds(60)) { !self.process.isRunning }
        if !exited { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return (process.terminationStatus, process.terminationReason == .exit && exited)
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
