package import Foundation

/// The package's root directory (the one holding `Package.swift`), found from this file's path, and the fixture
/// directories the tests and benchmarks read.
package enum PackageRoot {
    package static let url: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    /// `Recordings/`.
    package static var recordings: URL { url.appendingPathComponent("Recordings") }
    /// `Devices/`.
    package static var devices: URL { url.appendingPathComponent("Devices") }

    /// A file under `Recordings/`.
    package static func recording(_ name: String) -> String { recordings.appendingPathComponent(name).path }

    /// Every `Recordings/*.jsonl`, by file name.
    package static var recordingNames: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: recordings.path)) ?? [])
            .filter { $0.hasSuffix(".jsonl") }
            .sorted()
    }

    /// Whether golden files and generated recordings are re-recorded (`RECORD_SNAPSHOTS` is set).
    package static var isRecordingSnapshots: Bool { ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] != nil }

    /// The built `carebridge` executable next to the running test bundle or benchmark
    /// (`.build/<configuration>/carebridge`).
    package static var carebridgeExecutable: URL {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while url.path != "/" {
            url.deleteLastPathComponent()
            let candidate = url.appendingPathComponent("carebridge")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return self.url.appendingPathComponent(".build/debug/carebridge")
    }
}
