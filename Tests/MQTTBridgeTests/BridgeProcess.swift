import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `carebridge` executable, in the foreground or in the background (to kill it).
struct BridgeProcess {
    struct Result {
        /// The exit status, or the signal's number when a signal ended it.
        var status: Int32
        /// Whether it exited (rather than being killed by a signal).
        var exited: Bool
        var stdout: String
        var stderr: String
    }

    static func recording(_ name: String) -> String { PackageRoot.recording(name) }

    /// The executable next to the test bundle (`.build/<config>/carebridge`).
    static var executable: URL { PackageRoot.carebridgeExecutable }

    let process: Process
    let stdoutURL: URL
    let stderrURL: URL

    /// Starts `carebridge ARGUMENTS` with its output going to files in `directory`.
    init(_ arguments: [String], directory: URL) throws {
        let tag = UUID().uuidString.prefix(6)
        stdoutURL = directory.appendingPathComponent("bridge-\(tag).out")
        stderrURL = directory.appendingPathComponent("bridge-\(tag).err")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["CAREBRIDGE_LOG_LEVEL"] = "info"
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// Runs `carebridge ARGUMENTS` to the end.
    static func run(_ arguments: [String], directory: URL) async throws -> Result {
        let bridge = try BridgeProcess(arguments, directory: directory)
        return try await bridge.wait()
    }

    var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    var isRunning: Bool { process.isRunning }

    /// Sends `signal` to the process.
    func send(_ signal: Int32) {
        Glibc.kill(process.processIdentifier, signal)
    }

    /// Waits for the process to exit (at most `timeout`, then kills it and fails).
    func wait(timeout: Duration = .seconds(120)) async throws -> Result {
        guard await eventually(timeout: timeout, { !process.isRunning }) else {
            Glibc.kill(process.processIdentifier, SIGKILL)
            throw MosquittoBroker.Failure(description: "carebridge did not finish within \(timeout):\n\(stderr)")
        }
        return Result(
            status: process.terminationStatus,
            exited: process.terminationReason == .exit,
            stdout: stdout,
            stderr: stderr
        )
    }

    /// Kills the bridge as a crash would (SIGKILL: no DISCONNECT, no clean-up).
    func kill() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

/// Parses a JSON object (the payload of a state or config message, or `--json` output).
func jsonObject(_ text: String) throws -> [String: Any] {
    guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
        throw MosquittoBroker.Failure(description: "not a JSON object: \(text)")
    }
    return object
}

/// What a replay stores, read back independently of MQTT: the recording replayed into a separate store
/// (without --mqtt) and listed with `carebridge samples --json`.
struct ExpectedSamples {
    var samples: [[String: Any]]

    init(recording: String, scratch: ScratchDirectory) async throws {
        let store = scratch.path("expected-\(UUID().uuidString.prefix(6)).sqlite")
        let replay = try await BridgeProcess.run(
            ["replay", "--store", store, "--time-zone", "UTC", recording],
            directory: scratch.url
        )
        guard replay.status == 0 else { throw MosquittoBroker.Failure(description: "dry replay: \(replay.stderr)") }
        let listed = try await BridgeProcess.run(
            ["samples", "--store", store, "--time-zone", "UTC", "--json"],
            directory: scratch.url
        )
        samples = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]] ?? []
    }

    var ids: Set<String> { Set(samples.compactMap { $0["id"] as? String }) }

    /// `carebridge/<device>/<type>`, the device address lower-cased with `:` → `_` (Home Assistant's id rules).
    static func stateTopic(_ sample: [String: Any], prefix: String = "carebridge") -> String {
        "\(prefix)/\(deviceID(sample))/\(sample["type"] as? String ?? "?")"
    }

    static func deviceID(_ sample: [String: Any]) -> String {
        let source = sample["source"] as? [String: Any]
        let device = source?["device"] as? [String: Any]
        let address = device?["address"] as? String ?? "?"
        return address.lowercased().replacingOccurrences(of: ":", with: "_")
    }
}
