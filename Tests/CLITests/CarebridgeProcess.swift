import Foundation
import TestSupport

/// Runs the built `carebridge` executable, as a user would.
enum CarebridgeProcess {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The executable next to the test bundle (`.build/<config>/carebridge`).
    static var executable: URL { PackageRoot.carebridgeExecutable }

    /// Runs `carebridge ARGUMENTS` to the end, reading both pipes while it runs (a child that writes more than a
    /// pipe buffer to standard error cannot block it).
    static func run(
        _ arguments: [String],
        environment: [String: String] = [:],
        stdin: String? = nil,
        executable: URL = executable
    ) async throws -> Result {
        let output = try await ChildProcess.run(
            executable,
            arguments,
            environment: environment,
            stdin: stdin.map { Data($0.utf8) }
        )
        return Result(status: output.status, stdout: output.standardOutput, stderr: output.standardError)
    }
}
