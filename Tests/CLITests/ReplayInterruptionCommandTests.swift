import Foundation
import Testing

#if canImport(Glibc)
import Glibc
import TestSupport
#endif

/// SIGINT during a paced replay: what was read is stored, the summary says so, and a second replay stores the
/// rest without duplicating anything.
@Suite struct ReplayInterruptionCommandTests {
    static let recording = PackageRoot.recording("heart-rate-strap-20-minutes.jsonl")

    /// This test's directory, removed when the test ends (after the child process has been waited for).
    let scratch: ScratchDirectory

    init() throws { scratch = try ScratchDirectory("interrupt-") }

    func storedSampleCount(_ store: String) async throws -> Int {
        let result = try await CarebridgeProcess.run(["samples", "--store", store, "--json"])
        return (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [Any])?.count ?? -1
    }

    @Test func anInterruptedReplaySaysWhatItStoredAndResumes() async throws {
        let store = scratch.url.appendingPathComponent("s.sqlite").path
        // 20 minutes recorded, replayed at their own pace, interrupted once a sample is stored: the first comes
        // within seconds, and each look runs `carebridge samples`, which waits its turn among the suite's children
        // on a loaded machine (at 10 times the pace, the whole replay once ended before a look came back).
        let process = try ChildProcess(
            CarebridgeProcess.executable,
            ["replay", "--store", store, "--speed", "1", "--json", Self.recording]
        )
        // Wait until the paced replay has stored something (each sample is written as it comes).
        try await waitUntil("the replay stored a sample", timeout: .seconds(100), interval: .milliseconds(100)) {
            (try? await storedSampleCount(store)) ?? 0 > 0
        }
        process.send(SIGINT)
        let output = await process.wait()
        let stdout = output.stdout
        let stderr = output.standardError
        #expect(output.exited, "killed by the signal instead of stopping")
        #expect(output.status == 130, "\(stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: stdout) as? [String: Any])
        let new = try #require((summary["samples"] as? [String: Any])?["new"] as? Int)
        #expect((summary["interrupted"] as? [String: Any])?["file"] as? String == Self.recording)
        #expect(stderr.contains("interrupted during"), "\(stderr)")
        #expect(new > 0)
        #expect(try await storedSampleCount(store) == new, "the summary counts exactly what is stored")

        let rest = try await CarebridgeProcess.run(["replay", "--store", store, "--json", Self.recording])
        #expect(rest.status == 0, "\(rest.stderr)")
        let again = try #require(try JSONSerialization.jsonObject(with: Data(rest.stdout.utf8)) as? [String: Any])
        let samples = try #require(again["samples"] as? [String: Any])
        #expect(samples["alreadyStored"] as? Int == new)
        #expect(try await storedSampleCount(store) == (samples["total"] as? Int))
    }
}
