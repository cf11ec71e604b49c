import Foundation

/// Locates the package's `Recordings/`, `Devices/` and golden directories from this file's path.
enum PackageFixtures {
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        fatalError("package root not found above \(#filePath)")
    }()

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
