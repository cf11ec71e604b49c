import Foundation
import TestSupport

/// The built `carebridge` executable, run as a user (or systemd) would.
final class CarebridgeBinary: @unchecked Sendable {
    static var executable: URL { PackageRoot.carebridgeExecutable }

    let process = Process()
    let stdoutURL: URL
    let stderrURL: URL

    /// Starts `carebridge arguments…` with `DBUS_SYSTEM_BUS_ADDRESS` pointed at the fake's bus.
    init(_ arguments: [String], bus: String, environment: [String: String] = [:]) throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("carebridge-\(UUID().uuidString)")
        stdoutURL = base.appendingPathExtension("out")
        stderrURL = base.appendingPathExtension("err")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        process.executableURL = Self.executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SYSTEM_BUS_ADDRESS"] = bus
        env["TZ"] = "Europe/Berlin"
        env.removeValue(forKey: "NOTIFY_SOCKET")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    /// Sends SIGTERM (graceful stop) and waits up to `timeout` for the exit status.
    func terminate(timeout: Duration = .seconds(20)) async -> Int32? {
        kill(process.processIdentifier, SIGTERM)
        return await wait(timeout: timeout)
    }

    func wait(timeout: Duration) async -> Int32? {
        let exited = await FakeBlueZ.eventually(timeout: timeout) { !self.process.isRunning }
        if !exited {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: stdoutURL)
        try? FileManager.default.removeItem(at: stderrURL)
    }

    /// Runs a command to completion (store queries, replay).
    static func run(
        _ arguments: [String],
        bus: String = "unix:path=/nonexistent"
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        let binary = try CarebridgeBinary(arguments, bus: bus)
        let status = await binary.wait(timeout: .seconds(120)) ?? -1
        return (status, binary.stdout, binary.stderr)
    }
}
