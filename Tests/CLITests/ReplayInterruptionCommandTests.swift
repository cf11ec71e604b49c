import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SIGINT during a paced replay: what was read is stored, the summary says so, and a second replay stores the
/// rest without duplicating anything.
@Suite struct ReplayInterruptionCommandTests {
    static let recording: String = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { break }
        }
        return url.appendingPathComponent("Recordings/heart-rate-strap-20-minutes.jsonl").path
    }()

    func storedSampleCount(_ store: String) throws -> Int {
        let result = try CarebridgeProcess.run(["samples", "--store", store, "--json"])
        return (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [Any])?.count ?? -1
    }

    @Test func anInterruptedReplaySaysWhatItStoredAndResumes() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interrupt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let store = dir.appendingPathComponent("s.sqlite").path
        let process = Process()
        process.executableURL = CarebridgeProcess.executable
        // 20 minutes recorded, replayed 60 times faster: 20 s in all, interrupted after samples were stored.
        process.arguments = ["replay", "--store", store, "--speed", "60", "--json", Self.recording]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Wait until the paced replay has stored something (each sample is written as it comes).
        var waited = 0
        while waited < 300, (try? storedSampleCount(store)) ?? 0 == 0 {
            usleep(100_000)
            waited += 1
        }
        kill(process.processIdentifier, SIGINT)
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit, "killed by the signal instead of stopping")
        #expect(process.terminationStatus == 130, "\(stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: stdout) as? [String: Any])
        let new = try #require((summary["samples"] as? [String: Any])?["new"] as? Int)
        #expect((summary["interrupted"] as? [String: Any])?["file"] as? String == Self.recording)
        #expect(stderr.contains("interrupted during"), "\(stderr)")
        #expect(new > 0)
        #expect(try storedSampleCount(store) == new, "the summary counts exactly what is stored")

        let rest = try CarebridgeProcess.run(["replay", "--store", store, "--json", Self.recording])
        #expect(rest.status == 0, "\(rest.stderr)")
        let again = try #require(try JSONSerialization.jsonObject(with: Data(rest.stdout.utf8)) as? [String: Any])
        let samples = try #require(again["samples"] as? [String: Any])
        #expect(samples["alreadyStored"] as? Int == new)
        #expect(try storedSampleCount(store) == (samples["total"] as? Int))
    }
}
