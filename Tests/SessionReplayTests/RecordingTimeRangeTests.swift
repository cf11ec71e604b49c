import BridgeCore
import Foundation
import GATTDecoding
import Logging
import SessionReplay
import TestSupport
import Testing

/// A `t` or `recordedAt` outside the supported range is a bad line (or a bad header), never a trap.
@Suite struct RecordingTimeRangeTests {
    /// This test's directory for its recording files, removed when the test ends.
    let scratch: ScratchDirectory

    init() throws { scratch = try ScratchDirectory("replay-") }

    func header(_ recordedAt: String) -> String {
        #"{"format": "carebridge-recording", "version": 1, "recordedAt": "\#(recordedAt)"}"#
    }

    @Test(arguments: ["1e17", "-1e17", "1e300", "-1e300", "9.3e15", "-9.3e15", "2.6e11", "-4.1e9"])
    func aHugeTIsABadLineAndTheNextLinesStillRead(t: String) throws {
        let path = try temporaryFile(
            "t.jsonl",
            contents: [
                header("2026-11-20T07:58:00+01:00"),
                #"{"t": 1, "kind": "connected", "device": "C4:7C:8D:6A:3E:10"}"#,
                #"{"t": \#(t), "kind": "notification", "device": "C4:7C:8D:6A:3E:10", "characteristic": "2A37", "value": "0048"}"#,
                #"{"t": 2, "kind": "notification", "device": "C4:7C:8D:6A:3E:10", "characteristic": "2A37", "value": "0049"}"#,
            ].joined(separator: "\n") + "\n",
            in: scratch
        )
        let reader = try RecordingReader(path: path, logger: Logger(label: "test"))
        var items: [RecordingItem] = []
        while let item = reader.next() { items.append(item) }
        #expect(items.count == 3)
        guard case .problem(let problem) = items[1] else {
            Issue.record("line 3 should be a problem: \(items[1])")
            return
        }
        #expect(problem.location.line == 3)
        #expect(problem.message.contains("supported range"), "\(problem.message)")
        guard case .event = items[2] else {
            Issue.record("line 4 should still be read")
            return
        }
    }

    @Test(arguments: [
        "2026-02-31T08:00:00Z", "2025-02-29T08:00:00Z", "2026-04-31T08:00:00Z", "0000-12-30T00:00:00Z",
        "1500-01-01T00:00:00Z",
    ])
    func anImpossibleRecordedAtIsAnInvalidHeader(recordedAt: String) throws {
        let path = try temporaryFile("h.jsonl", contents: header(recordedAt) + "\n", in: scratch)
        #expect(throws: RecordingError.self) { try RecordingReader(path: path, logger: Logger(label: "test")) }
    }
}
