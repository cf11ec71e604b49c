import Foundation
import TestSupport

/// Runs an independent program (qpdf, pdfinfo, pdftoppm, pdftotext, chromium, python3) and collects its output.
enum ExternalTool {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func locate(_ name: String) -> String? {
        for directory in ["/usr/bin", "/usr/local/bin", "/bin"] {
            let path = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// Tests that need a tool run when it is installed, and always under CI (where a missing tool fails them).
    static func enabled(_ names: String...) -> Bool {
        ProcessInfo.processInfo.environment["CI"] == "true" || names.allSatisfy { locate($0) != nil }
    }

    /// Runs `name arguments…` to the end without holding a thread of the cooperative pool (a browser rendering a
    /// report takes seconds).
    static func run(_ name: String, _ arguments: [String]) async throws -> Result {
        guard let path = locate(name) else {
            throw CocoaError(
                .fileNoSuchFile,
                userInfo: [NSLocalizedDescriptionKey: "\(name) is not installed (.ci/run installs it)"]
            )
        }
        let output = try await ChildProcess.run(URL(fileURLWithPath: path), arguments)
        return Result(status: output.status, stdout: output.standardOutput, stderr: output.standardError)
    }
}
