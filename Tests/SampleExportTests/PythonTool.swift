import Foundation
import TestSupport

/// Runs `python3` scripts from Tests/SampleExportTests/Validator: independent checks of what we write.
enum PythonTool {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Exit status a script uses when the package it needs is not installed.
    static let notInstalled: Int32 = 3

    static var inCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    static var validatorDirectory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Validator")
    }

    /// Where `.ci/run` installs fhir.resources 8.x (R4B models) with `pip install --target`.
    static var r4bDirectory: String {
        ProcessInfo.processInfo.environment["CAREBRIDGE_FHIR_R4B"] ?? "/opt/carebridge/fhir-r4b"
    }

    static let env = URL(fileURLWithPath: "/usr/bin/env")

    static func command(_ script: String, _ arguments: [String]) -> [String] {
        ["python3", validatorDirectory.appendingPathComponent(script).path] + arguments
    }

    /// Runs a script to the end without holding a thread of the cooperative pool.
    static func run(_ script: String, _ arguments: [String]) async throws -> Result {
        let output = try await ChildProcess.run(env, command(script, arguments))
        return Result(status: output.status, stdout: output.standardOutput, stderr: output.standardError)
    }

    /// True when python3 and both fhir.resources validators are installed.
    static let validatorsInstalled: Bool = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("carebridge-probe-\(UUID())")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("empty.json")
        guard (try? Data("{\"resourceType\":\"Bundle\",\"type\":\"collection\"}".utf8).write(to: file)) != nil else {
            return false
        }
        // Once, while the tests are planned (synchronously, before any runs).
        let r4 = try? ChildProcess.run(env, command("validate_fhir.py", [file.path]))
        let r4b = try? ChildProcess.run(env, command("validate_fhir.py", [file.path, "--r4b", r4bDirectory]))
        return r4?.status == 0 && r4b?.status == 0
    }()

    /// Run validator tests when the validators are installed, and always in CI (where a missing one fails).
    static var validatorsRequired: Bool { inCI || validatorsInstalled }
}
