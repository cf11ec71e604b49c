import Foundation

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

    static func run(_ name: String, _ arguments: [String]) throws -> Result {
        guard let path = locate(name) else {
            throw CocoaError(
                .fileNoSuchFile,
                userInfo: [NSLocalizedDescriptionKey: "\(name) is not installed (.ci/run installs it)"]
            )
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("out")
        let err = directory.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? ""
        )
    }
}
