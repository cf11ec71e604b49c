import Foundation
import TestSupport

/// Locates the package's `Recordings/`, `Devices/` and golden directories from this file's path.
enum PackageFixtures {
    static let root = PackageRoot.url

    static var recordings: URL { root.appendingPathComponent("Recordings") }
    static var devices: URL { root.appendingPathComponent("Devices") }
    static var golden: URL { root.appendingPathComponent("Tests/CareBridgeKitTests/Golden") }

    /// Every `Recordings/*.jsonl`, by file name.
    static var recordingNames: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: recordings.path)) ?? [])
            .filter { $0.hasSuffix(".jsonl") }
            .sorted()
    }

    static var isRecording: Bool { ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] != nil }

    /// A fresh temporary directory.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("carebridge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
