import Foundation
import TestSupport
import Testing

/// No input crashes the command line: numeric options are range-checked, impossible or out-of-range dates are
/// refused, a huge `t` in a recording is one bad line (caught by --strict) and the rest of its batch is stored.
@Suite struct InputHardeningCommandTests {
    /// This test's directory, removed when the test ends.
    let scratch: ScratchDirectory
    var directory: URL { scratch.url }
    let storePath: String

    init() throws {
        scratch = try ScratchDirectory("carebridge-hard-")
        storePath = scratch.url.appendingPathComponent("store.sqlite").path
    }

    func run(_ arguments: [String]) async throws -> CarebridgeProcess.Result {
        try await CarebridgeProcess.run(arguments, environment: ["TZ": "Europe/Berlin"])
    }

    /// Each is refused at argument validation (exit 64) with the option named, before anything runs.
    @Test(arguments: [
        ["replay", "--mqtt-wait", "1e17"], ["replay", "--mqtt-wait", "-1"], ["replay", "--mqtt-retry", "1e17"],
        ["replay", "--mqtt-retry", "0"], ["replay", "--speed", "1e-300"], ["replay", "--speed", "1e300"],
        ["replay", "--speed", "nan"], ["run", "--scanner-watchdog", "1e17"], ["run", "--scanner-watchdog", "nan"],
        ["run", "--duration", "1e17"], ["run", "--clock-skew-tolerance", "1e300"], ["record", "--duration", "inf"],
        ["scan", "--timeout", "1e17"], ["samples", "--limit", "-1"], ["complete", "x", "--occurrence", "-3"],
    ])
    func outOfRangeNumbersAreRefusedWithTheOptionNamed(arguments: [String]) async throws {
        var full = arguments + ["--store", storePath]
        if arguments[0] == "replay" { full.append("/nonexistent.jsonl") }
        if ["scan", "record"].contains(arguments[0]) { full.removeLast(2) }
        if arguments[0] == "record" { full += ["--out", directory.appendingPathComponent("r.jsonl").path] }
        let result = try await run(full)
        #expect(result.status == 64, "\(full): \(result.status) \(result.stderr)")
        #expect(result.stderr.contains(arguments[1]), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: storePath))
    }

    @Test(arguments: [
        "2026-02-31T08:00", "2025-02-29T08:00", "2026-04-31", "0000-12-30", "1581-10-10T08:00", "2026-11-20T24:00",
    ])
    func ingestRefusesImpossibleAndOutOfRangeDates(at: String) async throws {
        let result = try await run(["ingest", "bodyMass", "72", "kg", "--at", at, "--store", storePath])
        #expect(result.status == 64, "\(at): \(result.stderr)")
        #expect(result.stderr.contains("--at"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: storePath))
    }

    @Test(arguments: ["0x46", "0X46", "0x1p6", "inf", "nan", "70 ", "7O", "--70", "1e", ""])
    func ingestRefusesHexadecimalAndOtherNonDecimalValues(value: String) async throws {
        let result = try await run(["ingest", "heartRate", value, "bpm", "--store", storePath])
        #expect(result.status != 0, "'\(value)' was accepted")
        #expect(!FileManager.default.fileExists(atPath: storePath))
    }

    @Test func ingestReadsDecimalCommasAndABareTimeAsToday() async throws {
        let before = Date()
        let result = try await run([
            "ingest", "bodyMass", "72,5", "kg", "--at", "07:00", "--force", "--store", storePath, "--json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let samples = try await run(["samples", "--store", storePath, "--json"])
        let list = try #require(JSONSerialization.jsonObject(with: Data(samples.stdout.utf8)) as? [[String: Any]])
        #expect(list.first?["value"] as? Double == 72.5)
        let start = try #require(list.first?["start"] as? String)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Berlin")!
        // "Today" as it was when the command ran: either side of the command, should it run across midnight.
        let expected = Set(
            [before, Date()].map { instant in
                let day = calendar.dateComponents([.year, .month, .day], from: instant)
                return String(format: "%04d-%02d-%02dT07:00:00", day.year!, day.month!, day.day!)
            }
        )
        #expect(expected.contains { start.hasPrefix($0) }, "\(start) vs \(expected.sorted())")
    }

    /// The line with a huge `t` is bad; the lines before and after it (same batch) are stored, and --strict
    /// refuses the file.
    @Test func aHugeTInARecordingIsABadLineAndTheRestOfTheBatchIsStored() async throws {
        let recording = directory.appendingPathComponent("huge-t.jsonl").path
        let lines = [
            #"{"format": "carebridge-recording", "version": 1, "recordedAt": "2026-11-20T07:58:00+01:00", "timeZone": "Europe/Berlin"}"#,
            #"{"t": 0.1, "kind": "advertisement", "device": "C8:47:8C:00:00:01", "name": "HRM", "serviceUUIDs": ["180D"]}"#,
            #"{"t": 0.5, "kind": "connected", "device": "C8:47:8C:00:00:01"}"#,
            #"{"t": 0.6, "kind": "services", "device": "C8:47:8C:00:00:01", "services": {"180D": ["2A37"]}}"#,
            #"{"t": 1, "kind": "notification", "device": "C8:47:8C:00:00:01", "characteristic": "2A37", "value": "0048"}"#,
            #"{"t": 1e17, "kind": "notification", "device": "C8:47:8C:00:00:01", "characteristic": "2A37", "value": "0049"}"#,
            #"{"t": -1e300, "kind": "notification", "device": "C8:47:8C:00:00:01", "characteristic": "2A37", "value": "004A"}"#,
            #"{"t": 2, "kind": "notification", "device": "C8:47:8C:00:00:01", "characteristic": "2A37", "value": "004B"}"#,
        ]
        try (lines.joined(separator: "\n") + "\n").write(toFile: recording, atomically: true, encoding: .utf8)
        let strict = try await run(["replay", "--store", storePath, "--strict", recording])
        #expect(strict.status == 65, "\(strict.stderr)")
        #expect(strict.stderr.contains("\(recording):6:"), "\(strict.stderr)")
        #expect(strict.stderr.contains("\(recording):7:"), "\(strict.stderr)")

        let lenient = try await run(["replay", "--store", storePath, "--json", recording])
        #expect(lenient.status == 0, "\(lenient.stderr)")
        let summary = try #require(JSONSerialization.jsonObject(with: Data(lenient.stdout.utf8)) as? [String: Any])
        #expect((summary["samples"] as? [String: Any])?["new"] as? Int == 2)
        #expect((summary["badLines"] as? [[String: Any]])?.compactMap { $0["line"] as? Int } == [6, 7])
    }

    /// A Bluetooth name with escape sequences (clear screen, retitle the window, a fake line) reaches the summary
    /// and the warnings only as visible `\u{1B}` text.
    @Test func deviceStringsWithTerminalEscapesArePrintedSanitised() async throws {
        let recording = directory.appendingPathComponent("escape.jsonl").path
        let name = #"\u001b[2J\u001b]0;pwned\u0007HRM\nfake line\u009b31m\u202e"#
        let lines = [
            #"{"format": "carebridge-recording", "version": 1, "recordedAt": "2026-11-20T07:58:00+01:00"}"#,
            #"{"t": 0.1, "kind": "advertisement", "device": "C8:47:8C:00:00:01", "name": "\#(name)", "serviceUUIDs": ["180D"]}"#,
            #"{"t": 0.5, "kind": "connected", "device": "C8:47:8C:00:00:01"}"#,
            #"{"t": 1, "kind": "notification", "device": "C8:47:8C:00:00:01", "characteristic": "2A37", "value": "0048"}"#,
            #"{"t": 2, "kind": "error", "device": "C8:47:8C:00:00:01", "message": "\#(name)"}"#,
            #"{"t": 3, "kind": "bogus\#(name)", "device": "C8:47:8C:00:00:01"}"#,
        ]
        try (lines.joined(separator: "\n") + "\n").write(toFile: recording, atomically: true, encoding: .utf8)
        let result = try await run(["replay", "--store", storePath, recording])
        #expect(result.status == 0, "\(result.stderr)")
        for output in [result.stdout, result.stderr] {
            #expect(!output.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B })
            #expect(!output.unicodeScalars.contains { $0.value == 0x202E })
            #expect(!output.contains("\nfake line"))
        }
        #expect(result.stdout.contains(#"\u{1B}[2J"#), "\(result.stdout)")
    }
    /// A device identifier with escape sequences reaches a CSV export shown on a terminal (a pseudo-terminal from
    /// util-linux's `script`) only as visible `\u{1B}` text; into a pipe or a file the CSV stays byte-exact.
    @Test func aCSVExportOnATerminalShowsDeviceEscapesInsteadOfRunningThem() async throws {
        let recording = directory.appendingPathComponent("escape-device.jsonl").path
        let device = #"\u001b[2Jdev\u009b31m"#
        let lines = [
            #"{"format": "carebridge-recording", "version": 1, "recordedAt": "2026-11-20T07:58:00+01:00"}"#,
            #"{"t": 0.1, "kind": "advertisement", "device": "\#(device)", "name": "HRM", "serviceUUIDs": ["180D"]}"#,
            #"{"t": 0.5, "kind": "connected", "device": "\#(device)"}"#,
            #"{"t": 1, "kind": "notification", "device": "\#(device)", "characteristic": "2A37", "value": "0048"}"#,
        ]
        try (lines.joined(separator: "\n") + "\n").write(toFile: recording, atomically: true, encoding: .utf8)
        #expect(try await run(["replay", "--store", storePath, recording]).status == 0)
        let piped = try await CarebridgeProcess.run(["export", "--format", "csv", "--store", storePath])
        #expect(piped.stdout.contains(",\u{1B}[2Jdev\u{9B}31m,"), "\(piped.stdout)")
        let command = [CarebridgeProcess.executable.path, "export", "--format", "csv", "--store", storePath]
            .map { "'" + $0 + "'" }.joined(separator: " ")
        let shown = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/script"),
            ["--quiet", "--return", "--command", command, "/dev/null"]
        )
        #expect(shown.status == 0, "\(shown.standardError)")
        #expect(!shown.standardOutput.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x9B })
        #expect(shown.standardOutput.contains(#",\u{1B}[2Jdev\u{9B}31m,"#), "\(shown.standardOutput)")
        #expect(shown.standardOutput.contains("heartRate,72.0,/min"))
    }
}
