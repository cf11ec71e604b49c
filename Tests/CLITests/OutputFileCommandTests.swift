import Foundation
import TestSupport
import Testing

/// Commands that write files never destroy data: `--out` may not be an input, an existing file is replaced only
/// when the command succeeded, and what is written is private (0600) unless `--mode` says otherwise.
@Suite struct OutputFileCommandTests {
    /// This test's directory, removed when the test ends.
    let scratch: ScratchDirectory
    var directory: URL { scratch.url }

    init() throws {
        scratch = try ScratchDirectory("out-cli-")
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    func copyOfRecording() throws -> String {
        let source = ReplayCommandTests.recording("weight-scale-morning-weigh-in.jsonl")
        let copy = path("mine.jsonl")
        try FileManager.default.copyItem(atPath: source, toPath: copy)
        return copy
    }

    func permissions(_ path: String) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test("an export removes the .partial file a killed export to the same --out left, and says so")
    func aKilledExportsPartialFileIsRemovedByTheNextSayingSo() async throws {
        let store = path("store.sqlite")
        let ingest = try await CarebridgeProcess.run(["ingest", "--store", store, "bodyMass", "72", "kg"])
        #expect(ingest.status == 0, "\(ingest.stderr)")
        // What kill -9 during `export --out export.csv` leaves.
        let stale = path("export.csv.Ab12Cd.partial")
        #expect(FileManager.default.createFile(atPath: stale, contents: Data("id,type\r\n01".utf8)))
        let out = path("export.csv")
        let result = try await CarebridgeProcess.run(["export", "--store", store, "--format", "csv", "--out", out])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "note: removed 1 unfinished file(s) a killed earlier run writing \(out) left: \(stale)"
            )
        )
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(try String(contentsOfFile: out, encoding: .utf8).contains("bodyMass,72"))
    }

    @Test("recording redact --out naming the input is refused and the recording is left intact")
    func redactOntoItselfIsRefused() async throws {
        let input = try copyOfRecording()
        let before = try Data(contentsOf: URL(fileURLWithPath: input))
        for out in [input, directory.path + "/./mine.jsonl"] {
            let result = try await CarebridgeProcess.run(["recording", "redact", input, "--out", out])
            #expect(result.status == 73, "\(result.stderr)")
            #expect(result.stderr.contains("input"), "\(result.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == before)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["mine.jsonl"])
    }

    @Test("recording redact --out writes a private file, or the mode given with --mode")
    func redactWritesPrivateFile() async throws {
        let input = try copyOfRecording()
        let out = path("shared.jsonl")
        #expect(try await CarebridgeProcess.run(["recording", "redact", input, "--out", out]).status == 0)
        #expect(try permissions(out) == 0o600)
        let wider = path("wider.jsonl")
        #expect(
            try await CarebridgeProcess.run(["recording", "redact", input, "--out", wider, "--mode", "0644"]).status
                == 0
        )
        #expect(try permissions(wider) == 0o644)
        let bad = try await CarebridgeProcess.run(["recording", "redact", input, "--out", wider, "--mode", "rw"])
        #expect(bad.status == 64)
    }

    @Test("record --out an existing file leaves it unchanged when recording fails at once (no D-Bus)")
    func failedRecordKeepsExistingFile() async throws {
        let existing = try copyOfRecording()
        let before = try Data(contentsOf: URL(fileURLWithPath: existing))
        let result = try await CarebridgeProcess.run(
            ["record", "--out", existing, "--duration", "5"],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(path("no-bus-here"))"]
        )
        #expect(result.status != 0)
        #expect(result.stderr.contains("nothing was recorded"), "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: existing)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["mine.jsonl"])
    }

    @Test("export --out writes 0600 and refuses the store itself as output")
    func exportOutput() async throws {
        let store = path("store.sqlite")
        let replay = try await CarebridgeProcess.run([
            "replay", "--store", store, ReplayCommandTests.recording("weight-scale-morning-weigh-in.jsonl"),
        ])
        #expect(replay.status == 0, "\(replay.stderr)")
        let csv = path("readings.csv")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: csv))
        let export = try await CarebridgeProcess.run(["export", "--store", store, "--format", "csv", "--out", csv])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(try String(contentsOfFile: csv, encoding: .utf8).hasPrefix("id,type,value"))
        #expect(try permissions(csv) == 0o600)

        let onto = try await CarebridgeProcess.run(["export", "--store", store, "--format", "csv", "--out", store])
        #expect(onto.status == 73)
        #expect(onto.stderr.contains("input"), "\(onto.stderr)")
        let samples = try await CarebridgeProcess.run(["samples", "--store", store, "--json"])
        #expect(samples.status == 0, "\(samples.stderr)")
        #expect((try JSONSerialization.jsonObject(with: Data(samples.stdout.utf8)) as? [Any])?.count == 3)
    }
}
