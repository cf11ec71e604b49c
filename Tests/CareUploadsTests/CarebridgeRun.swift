import Foundation
import TestSupport
import Testing

/// A finished `carebridge` run of the upload tests (in zone Europe/Berlin): its status and both outputs, printed
/// whole when an expectation fails.
struct CarebridgeRun: CustomStringConvertible {
    var status: Int32
    var stdout: String
    var stderr: String
    var description: String { "→ \(status)\n\(stdout)\n\(stderr)" }

    /// Runs the built `carebridge arguments…` to its end.
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> CarebridgeRun {
        let output = try await ChildProcess.run(
            PackageRoot.carebridgeExecutable,
            arguments,
            environment: ["TZ": "Europe/Berlin"].merging(environment) { $1 }
        )
        return CarebridgeRun(status: output.status, stdout: output.standardOutput, stderr: output.standardError)
    }

    /// Standard output as the `--json` summary of a push.
    func summary() throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any], "\(self)")
    }
}
