import BridgeCore
import BridgeFoundation
import Foundation
import GATTDecoding
import Logging
import SessionReplay
import TestSupport
import Testing

@Suite struct RecordingReaderTests {
    /// This test's directory for its recording files, removed when the test ends.
    let scratch: ScratchDirectory

    init() throws { scratch = try ScratchDirectory("replay-") }

    static let header =
        #"{"format": "carebridge-recording", "version": 1, "recordedAt": "2026-11-20T07:58:00+01:00", "timeZone": "Europe/Berlin", "host": "pi"}"#

    func read(_ lines: [String]) throws -> (RecordingReader, [RecordingItem], CapturingLogHandler.Store) {
        let path = try temporaryFile(
            "r.jsonl",
            contents: ([Self.header] + lines).joined(separator: "\n") + "\n",
            in: scratch
        )
        let (logger, store) = CapturingLogHandler.logger()
        let reader = try RecordingReader(path: path, logger: logger)
        var items: [RecordingItem] = []
        while let item = reader.next() { items.append(item) }
        return (reader, items, store)
    }

    func events(_ items: [RecordingItem]) -> [RecordedEvent] {
        items.compactMap { if case .event(let event) = $0 { event } else { nil } }
    }

    func problems(_ items: [RecordingItem]) -> [RecordingProblem] {
        items.compactMap { if case .problem(let problem) = $0 { problem } else { nil } }
    }

    @Test func readsHeaderAndEveryKind() throws {
        let (reader, items, _) = try read([
            #"{"t": 0.4, "kind": "advertisement", "device": "C4:7C:8D:6A:3E:10", "name": "MIBFS", "rssi": -61, "serviceUUIDs": ["181B"], "serviceData": {"181B": "02a4"}, "manufacturerData": {"0157": "0102"}}"#,
            #"{"t": 1.0, "kind": "connected", "device": "C4:7C:8D:6A:3E:10"}"#,
            #"{"t": 1.2, "kind": "services", "device": "C4:7C:8D:6A:3E:10", "services": {"181D": ["2A9D", "2A9E"]}}"#,
            #"{"t": 1.3, "kind": "read", "device": "C4:7C:8D:6A:3E:10", "characteristic": "2A29", "value": "41"}"#,
            #"{"t": 2, "kind": "notification", "device": "C4:7C:8D:6A:3E:10", "characteristic": "2A37", "value": "1648"}"#,
            #"{"t": 2.5, "kind": "indication", "device": "C4:7C:8D:6A:3E:10", "characteristic": "2A9D", "value": "00a438", "note": "72.5 kg"}"#,
            #"{"t": 9.5, "kind": "disconnected", "device": "C4:7C:8D:6A:3E:10", "reason": "remote"}"#,
        ])
        #expect(reader.header.timeZone?.identifier == "Europe/Berlin")
        #expect(reader.header.recordedAt == Date(timeIntervalSince1970: 1_795_157_880))
        #expect(reader.header.extra["host"] == .string("pi"))
        let events = events(items)
        #expect(events.count == 7)
        #expect(problems(items).isEmpty)
        guard case .advertisement(let advertisement) = events[0].event.kind else {
            Issue.record("expected an advertisement")
            return
        }
        #expect(advertisement.name == "MIBFS")
        #expect(advertisement.rssi == -61)
        #expect(advertisement.serviceUUIDs == [.bodyCompositionService])
        #expect(advertisement.serviceData[.bodyCompositionService] == [0x02, 0xA4])
        #expect(advertisement.manufacturerData[0x0157] == [0x01, 0x02])
        #expect(events[0].event.time == reader.header.recordedAt.addingTimeInterval(0.4))
        #expect(
            events[2].event.kind
                == .servicesDiscovered([.weightScaleService: [.weightMeasurement, .weightScaleFeature]])
        )
        #expect(
            events[3].event.kind
                == .value(CharacteristicValue(characteristic: .manufacturerNameString, bytes: [0x41], delivery: .read))
        )
        #expect(
            events[4].event.kind
                == .value(
                    CharacteristicValue(
                        characteristic: .heartRateMeasurement,
                        bytes: [0x16, 0x48],
                        delivery: .notification
                    )
                )
        )
        #expect(events[5].note == "72.5 kg")
        #expect(events[5].location.line == 7)
        #expect(events[6].event.kind == .disconnected(reason: "remote"))
    }

    @Test(
        "accepts UUIDs in 16-bit and 128-bit form, any case",
        arguments: [
            "2A9D", "2a9d", "0x2A9D", "00002a9d-0000-1000-8000-00805f9b34fb", "00002A9D-0000-1000-8000-00805F9B34FB",
        ]
    )
    func uuidSpellings(spelling: String) throws {
        let (_, items, _) = try read([
            #"{"t": 1, "kind": "indication", "device": "AA:BB:CC:DD:EE:FF", "characteristic": "\#(spelling)", "value": "00a438"}"#
        ])
        guard case .value(let value) = events(items).first?.event.kind else {
            Issue.record("no value event")
            return
        }
        #expect(value.characteristic == .weightMeasurement)
    }

    @Test func unknownKindsAndKeysAreSkippedWithAWarning() throws {
        let (_, items, log) = try read([
            #"{"t": 1, "kind": "mtu-changed", "device": "AA:BB:CC:DD:EE:FF", "mtu": 247}"#,
            #"{"t": 2, "kind": "connected", "device": "AA:BB:CC:DD:EE:FF", "phy": "2M"}"#,
        ])
        #expect(events(items).count == 1)
        #expect(problems(items).isEmpty)
        let warnings = log.all.filter { $0.0 == .warning }
        #expect(warnings.count == 2)
        #expect(warnings.contains { $0.2["kind"] == "mtu-changed" && "\($0.2["location"]!)".hasSuffix(":2") })
        #expect(warnings.contains { $0.2["key"] == "phy" })
    }

    @Test func badLinesAreReportedWithFileAndLineAndSkipped() throws {
        let (reader, items, _) = try read([
            #"{"t": 1, "kind": "connected", "device": "AA:BB:CC:DD:EE:FF"}"#,
            #"{"t": 1.1, "kind": "connected", "device": "#,
            #"{"t": 1.2, "kind": "notification", "device": "AA:BB:CC:DD:EE:FF", "characteristic": "2A37", "value": "16z8"}"#,
            #"{"t": 1.3, "kind": "notification", "device": "AA:BB:CC:DD:EE:FF", "characteristic": "2A3", "value": "1648"}"#,
            #"{"kind": "connected", "device": "AA:BB:CC:DD:EE:FF"}"#,
            "",
            #"{"t": 2, "kind": "disconnected", "device": "AA:BB:CC:DD:EE:FF", "reason": "remote"}"#,
        ])
        #expect(events(items).count == 2)
        let problems = problems(items)
        #expect(problems.map(\.location.line) == [3, 4, 5, 6])
        #expect(problems.allSatisfy { $0.location.file == reader.path })
        #expect(problems[0].message.contains("invalid JSON"))
        #expect(problems[1].message.contains("value"))
        #expect(problems[2].message.contains("2A3"))
        #expect(problems[3].message.contains("\"t\""))
        #expect(problems[0].description.hasPrefix("\(reader.path):3: "))
    }

    @Test func aLineNamingAKeyTwiceIsRefusedWithItsLineNotReadLastOneWins() throws {
        let (reader, items, _) = try read([
            #"{"t": 1, "kind": "connected", "device": "AA:BB:CC:DD:EE:FF"}"#,
            #"{"t": 1.2, "kind": "notification", "device": "AA:BB:CC:DD:EE:FF", "characteristic": "2A37", "value": "1648", "value": "16ff"}"#,
            #"{"t": 2, "kind": "disconnected", "device": "AA:BB:CC:DD:EE:FF", "reason": "remote"}"#,
        ])
        #expect(events(items).count == 2)
        let problems = problems(items)
        #expect(problems.map(\.location.line) == [3])
        #expect(problems.first?.message.contains("duplicate key \"value\"") == true, "\(problems)")
        #expect(problems.first?.description.hasPrefix("\(reader.path):3: ") == true)
    }

    @Test func aHeaderNamingAKeyTwiceIsRefused() throws {
        let path = try temporaryFile(
            "dup.jsonl",
            contents:
                #"{"format": "carebridge-recording", "version": 1, "version": 1, "recordedAt": "2026-11-20T07:58:00+01:00"}"#
                + "\n",
            in: scratch
        )
        #expect(throws: RecordingError.self) { try RecordingReader(path: path, logger: CapturingLogHandler.logger().0) }
    }

    @Test(
        "rejects a file whose first line is not a header",
        arguments: [
            "", #"{"t": 1, "kind": "connected", "device": "x"}"#,
            #"{"format": "carebridge-recording", "version": 2, "recordedAt": "2026-11-20T07:58:00+01:00"}"#,
            #"{"format": "carebridge-recording", "version": 1, "recordedAt": "yesterday"}"#,
        ]
    )
    func rejectsBadHeader(first: String) throws {
        let path = try temporaryFile("h.jsonl", contents: first + "\n", in: scratch)
        #expect(throws: RecordingError.self) { try RecordingReader(path: path, logger: Logger(label: "t")) }
    }

    @Test func missingFileNamesThePath() {
        do {
            _ = try RecordingReader(path: "/nonexistent/x.jsonl", logger: Logger(label: "t"))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .cannotOpen)
            #expect(error.description.hasPrefix("/nonexistent/x.jsonl"))
        }
    }

    @Test("a UTF-8 byte-order mark before the header is skipped, as in plan files")
    func byteOrderMarkIsSkipped() throws {
        let path = try temporaryFile(
            "bom.jsonl",
            contents: "\u{FEFF}" + Self.header + "\n"
                + #"{"t": 1.0, "kind": "connected", "device": "C4:7C:8D:6A:3E:10"}"# + "\n",
            in: scratch
        )
        let reader = try RecordingReader(path: path, logger: Logger(label: "t"))
        var items: [RecordingItem] = []
        while let item = reader.next() { items.append(item) }
        #expect(reader.header.timeZone?.identifier == "Europe/Berlin")
        #expect(events(items).count == 1)
        #expect(problems(items).isEmpty)
    }

    @Test("a directory is refused with a plain reason")
    func directoryIsRefused() throws {
        let directory = FileManager.default.temporaryDirectory.path
        do {
            _ = try RecordingReader(path: directory, logger: Logger(label: "t"))
            Issue.record("a directory was read as a recording")
        } catch {
            #expect(error.code == .cannotOpen)
            #expect(error.description.contains("Is a directory"))
        }
    }
}
