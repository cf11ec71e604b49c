import Foundation
import Logging
import SessionReplay
import TestSupport
import Testing

@Suite struct RecordingRedactorTests {
    /// This test's directory for its recording files, removed when the test ends.
    let scratch: ScratchDirectory

    init() throws { scratch = try ScratchDirectory("replay-") }

    static let text = """
        {"format": "carebridge-recording", "version": 1, "recordedAt": "2026-11-20T07:58:00+01:00", "host": "annas-pi"}
        {"t": 0.4, "kind": "advertisement", "device": "C4:7C:8D:6A:3E:10", "name": "Anna's scale", "serviceUUIDs": ["181D"]}
        {"t": 0.5, "kind": "advertisement", "device": "F0:11:22:33:44:55", "name": "Polar H10 1A2B"}
        {"t": 1.0, "kind": "connected", "device": "c4:7c:8d:6a:3e:10"}
        {"t": 2.0, "kind": "indication", "device": "C4:7C:8D:6A:3E:10", "characteristic": "2A9D", "value": "00a438", "note": "from C4:7C:8D:6A:3E:10"}
        {"t": 3.0, "kind": "advertisement", "device": "F0:11:22:33:44:55", "name": "Polar H10 1A2B"}
        {"t": 4.0, "kind": "broken line from /org/bluez/hci0/dev_C4_7C_8D_6A_3E_10

        """

    @Test func replacesAddressesAndNamesConsistently() throws {
        let input = try temporaryFile("in.jsonl", contents: Self.text, in: scratch)
        let output = input + ".redacted"
        var redactor = RecordingRedactor()
        let report = try redactor.redact(input: input, output: output)
        let redacted = try String(contentsOfFile: output, encoding: .utf8)
        #expect(!redacted.contains("C4:7C"))
        #expect(!redacted.uppercased().contains("C4:7C:8D"))
        #expect(!redacted.contains("C4_7C"))
        #expect(!redacted.contains("F0:11"))
        #expect(!redacted.contains("Anna"))
        #expect(!redacted.contains("Polar"))
        #expect(!redacted.contains("annas-pi"))
        let lines = redacted.split(separator: "\n").map(String.init)
        #expect(lines[1].contains("\"device\": \"02:00:00:00:00:01\""))
        #expect(lines[1].contains("\"name\": \"Device 1\""))
        #expect(lines[2].contains("\"device\": \"02:00:00:00:00:02\""))
        #expect(lines[3].contains("02:00:00:00:00:01"))  // lowercase spelling maps to the same replacement
        #expect(lines[4].contains("from 02:00:00:00:00:01"))
        #expect(lines[4].contains("\"value\": \"00a438\""))
        #expect(lines[5].contains("\"name\": \"Device 2\""))
        #expect(lines[6].contains("dev_02_00_00_00_00_01"))
        #expect(report.addresses == 2)
        #expect(report.names == 2)
        #expect(report.unparsedLines == [7])

        // The redacted file is still a readable recording.
        let reader = try RecordingReader(path: output, logger: Logger(label: "t"))
        var events = 0
        while let item = reader.next() { if case .event = item { events += 1 } }
        #expect(events == 5)
    }

    @Test func keepNamesLeavesNamesAlone() {
        var redactor = RecordingRedactor(keepNames: true)
        let line = redactor.redactLine(
            #"{"t": 1, "kind": "advertisement", "device": "C4:7C:8D:6A:3E:10", "name": "MIBFS"}"#
        )
        #expect(line.contains("MIBFS"))
        #expect(line.contains("02:00:00:00:00:01"))
    }

    @Test func sessionVariablesInTheHeaderFollowTheirDevicesReplacement() {
        var redactor = RecordingRedactor()
        let event = redactor.redactLine(#"{"t": 1, "kind": "connected", "device": "C4:7C:8D:6A:3E:10"}"#)
        let header = redactor.redactLine(
            #"{"format": "carebridge-recording", "version": 1, "recordedAt": "2026-11-20T07:20:00Z", "#
                + #""sessionVariables": {"C4:7C:8D:6A:3E:10": {"consentCode": 1234}}}"#
        )
        #expect(event.contains("02:00:00:00:00:01"))
        #expect(header.contains(#""02:00:00:00:00:01":"#), "\(header)")
        #expect(!header.contains("C4:7C"))
    }
}
