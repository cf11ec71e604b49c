package import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A server command of `carebridge` (`serve`, `hub serve`) as a child process, as a user starts it: its output
/// goes to files (read while it runs, for the address it prints), SIGTERM stops it, SIGKILL kills it.
package final class ListeningProcess: @unchecked Sendable {
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    package let process = Process()
    package let stdoutURL: URL
    package let stderrURL: URL
    /// The address it printed (`http://127.0.0.1:PORT`), once ``start(_:prefix:directory:environment:)`` returned.
    package private(set) var url = ""

    private init(arguments: [String], directory: URL, environment: [String: String]) throws {
        let tag = UUID().uuidString.prefix(6)
        stdoutURL = directory.appendingPathComponent("\(arguments.first ?? "serve")-\(tag).out")
        stderrURL = directory.appendingPathComponent("\(arguments.first ?? "serve")-\(tag).err")
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

    /// Starts `carebridge arguments…` and waits until it prints a line starting with `prefix` followed by its
    /// address.
    /// - Throws: ``Failure`` when it exits first; ``EventuallyTimeout`` when it prints nothing within a minute.
    package static func start(
        _ arguments: [String],
        prefix: String,
        directory: URL,
        environment: [String: String] = [:]
    ) async throws -> ListeningProcess {
        let server = try ListeningProcess(arguments: arguments, directory: directory, environment: environment)
        try await waitUntil("carebridge \(arguments.prefix(2).joined(separator: " ")) prints its address") {
            server.stdout.contains(prefix) || !server.process.isRunning
        }
        guard let line = server.stdout.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else {
            throw Failure(
                description: "carebridge \(arguments.first ?? "") exited without listening:\n\(server.stderr)"
            )
        }
        server.url = String(line.dropFirst(prefix.count))
        return server
    }

    package var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    package var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    /// Sends SIGTERM and waits for the exit.
    /// - Returns: the exit status (a signal's number when it was killed: only after a minute without exiting).
    /// - Throws: nothing yet; callers keep `try` so that a failed wait can become an error.
    package func stop() async throws -> (status: Int32, exited: Bool) {
        kill(process.processIdentifier, SIGTERM)
        let exited = await eventually(timeout: .seconds(180)) { !self.process.isRunning }
        if !exited { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return (process.terminationStatus, process.terminationReason == .exit && exited)
    }

    /// Kills it (SIGKILL: no shutdown, as a crash or a power cut) and waits for the exit.
    package func kill9() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
