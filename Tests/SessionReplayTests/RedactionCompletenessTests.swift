import Foundation
import GATTDecoding
import Logging
import SessionReplay
import TestSupport
import Testing

/// A recording seeded with every form an address or a name can take; none may survive redaction.
@Suite struct RedactionCompletenessTests {
    /// This test's directory for its recording files, removed when the test ends.
    let scratch: ScratchDirectory

    init() throws { scratch = try ScratchDirectory("replay-") }

    static let seeded = """
        {"format": "carebridge-recording", "version": 1, "recordedAt": "2026-11-20T07:58:00+01:00", "host": "annas-pi", "hostname": "annas-pi.local", "user": "anna", "capture": "btsnoop_hci_pixel-of-mia.log", "note": "Anna's Polar H10 1A2B at C4-7C-8D-6A-3E-10"}
        {"t": 0.1, "kind": "error", "device": "C4:7C:8D:6A:3E:10", "message": "Polar H10 1A2B did not answer"}
        {"t": 0.4, "kind": "advertisement", "device": "C4:7C:8D:6A:3E:10", "name": "Polar H10 1A2B", "serviceUUIDs": ["180D"], "manufacturerData": {"006B": "01103e6a8d7cc4ff"}}
        {"t": 0.5, "kind": "connected", "device": "c4:7c:8d:6a:3e:10", "note": "seen as C47C8D6A3E10 and c4-7c-8d-6a-3e-10 and /org/bluez/hci0/dev_C4_7C_8D_6A_3E_10"}
        {"t": 0.6, "kind": "read", "device": "C4:7C:8D:6A:3E:10", "characteristic": "2A25", "value": "534e2d3132333435"}
        {"t": 0.65, "kind": "read", "device": "C4:7C:8D:6A:3E:10", "characteristic": "2A00", "value": "506f6c6172204831302031413242"}
        {"t": 0.66, "kind": "error", "device": "C4:7C:8D:6A:3E:10", "message": "strap SN-12345 reported a fault"}
        {"t": 0.7, "kind": "read", "device": "C4:7C:8D:6A:3E:10", "characteristic": "2A23", "value": "0102030405060708"}
        {"t": 0.8, "kind": "notification", "device": "C4:7C:8D:6A:3E:10", "characteristic": "2A37", "value": "1648"}
        {"t": 0.9, "kind": "read", "device": "C4:7C:8D:6A:3E:10", "characteristic": "2A29", "value": "c47c8d6a3e10"}
        {"t": 9.0, "kind": "disconnected", "device": "C4:7C:8D:6A:3E:10", "reason": "Polar H10 1A2B went away"}
        not json: Polar H10 1A2B C4:7C:8D:6A:3E:10

        """

    func redact(_ redactor: inout RecordingRedactor) throws -> (String, RecordingRedactor.Report, String) {
        let input = try temporaryFile("seeded.jsonl", contents: Self.seeded, in: scratch)
        let output = input + ".redacted"
        let report = try redactor.redact(input: input, output: output)
        return (try String(contentsOfFile: output, encoding: .utf8), report, output)
    }

    @Test func noFormOfTheAddressOrTheNameSurvives() throws {
        var redactor = RecordingRedactor()
        let (text, report, output) = try redact(&redactor)
        for leak in [
            "C4:7C", "c4:7c", "C4-7C", "c4-7c", "C4_7C", "C47C8D6A3E10", "c47c8d6a3e10", "3e6a8d7cc4",
            "Polar", "1A2B", "annas-pi", "anna", "pixel-of-mia", "506f6c6172",
        ] {
            #expect(!text.contains(leak), "'\(leak)' survived:\n\(text)")
        }
        #expect(text.contains("02-00-00-00-00-01"))
        #expect(text.contains("dev_02_00_00_00_00_01"))
        #expect(text.contains("020000000001"))
        // The address inside manufacturer data (reversed, as little-endian devices send it) is replaced reversed.
        #expect(text.contains("01010000000002ff"), "\(text)")
        #expect(text.contains("\"name\": \"Device 1\""))
        #expect(text.contains("Device 1 did not answer"), "a note before the advertisement is redacted too")
        #expect(text.contains("\"value\": \"1648\""), "ordinary payloads are unchanged")
        #expect(text.contains("\"value\": \"534e2d3132333435\""), "serial kept without the option")
        #expect(report.addresses == 1)
        #expect(report.names == 1)

        // Still a readable recording with the same number of events.
        let reader = try RecordingReader(path: output, logger: Logger(label: "t"))
        var events = 0
        while let item = reader.next() { if case .event = item { events += 1 } }
        #expect(events == 10)
        // The Device Name read is the replacement name, as text a replay decodes.
        #expect(text.contains(#""value": "4465766963652031""#), "'Device 1' as UTF-8:\n\(text)")
    }

    @Test func deviceInformationIsReplacedOnRequest() throws {
        var redactor = RecordingRedactor(redactDeviceInformation: true)
        let (text, report, _) = try redact(&redactor)
        #expect(!text.contains("534e2d3132333435"))
        #expect(!text.contains("0102030405060708"))
        #expect(!text.contains("SN-12345"), "the serial in an error message is replaced too:\n\(text)")
        #expect(text.contains("strap SERIAL-1 reported a fault"), "\(text)")
        #expect(report.deviceInformationValues == 2)
    }

    @Test func keepNamesKeepsNamesButNotAddresses() throws {
        var redactor = RecordingRedactor(keepNames: true)
        let (text, _, _) = try redact(&redactor)
        #expect(text.contains("Polar H10 1A2B"))
        #expect(!text.contains("C4:7C") && !text.contains("C47C8D6A3E10"))
    }
}
