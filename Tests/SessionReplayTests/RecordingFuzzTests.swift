import BridgeCore
import Foundation
import GATTDecoding
import Logging
import SessionReplay
import TestSupport
import Testing

extension SplitMix64 {
    /// An element of `list` (TestSupport's SplitMix64).
    mutating func pick<T>(_ list: [T]) -> T { list[below(list.count)] }
}

/// The recording reader and the time parser over mutated input: numbers at and past every conversion limit,
/// impossible dates, random bytes. Nothing may trap; whatever is read must be inside the supported range.
@Suite struct RecordingFuzzTests {
    static let numbers = [
        "0", "-0", "1", "-1", "0.5", "1e17", "-1e17", "1e300", "-1e300", "9.3e15", "-9.3e15", "9223372036854775807",
        "-9223372036854775808", "18446744073709551616", "1e-300", "4.9e-324", "1.7976931348623157e308", "2.6e11",
        "-2.6e11", "1e400", "-1e400", "123456789012345678901234567890",
    ]
    static let times = [
        "2026-11-20T07:58:00+01:00", "2026-02-31T08:00:00Z", "2025-02-29T00:00:00Z", "0000-12-30T00:00:00Z",
        "1581-10-10T00:00:00Z", "9999-12-31T23:59:59Z", "9999-12-31T23:59:59-14:00", "1900-01-01T00:00:00+14:00",
        "2026-11-20T24:00:00Z", "2026-11-20T07:58:60Z", "2026-11-20T07:58:00+99:99", "2026-11-20T07:58:00.9999999999Z",
    ]
    static let lines = [
        #"{"t": T, "kind": "notification", "device": "C8:47:8C:00:00:01", "characteristic": "2A37", "value": "1648"}"#,
        #"{"t": T, "kind": "advertisement", "device": "C8:47:8C:00:00:01", "name": "x", "rssi": T}"#,
        #"{"t": T, "kind": "connected", "device": "C8:47:8C:00:00:01"}"#,
        #"{"t": T, "kind": "read", "device": "C8:47:8C:00:00:01", "characteristic": "2A08", "value": "ea07021f080000"}"#,
    ]

    /// What a fuzz run found; the loops run on ``CPUBoundWork``'s thread, where `#expect` has no test to report
    /// to, so they collect and the test checks.
    struct Findings: Sendable {
        var accepted = 0
        var problems = 0
        var refused = 0
        var outOfRange: [String] = []
    }

    @Test func theReaderNeverTrapsAndKeepsEveryEventInTheSupportedRange() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let found = try await CPUBoundWork.run { try Self.readMutatedRecordings(in: directory) }
        #expect(found.outOfRange.isEmpty, "\(found.outOfRange.prefix(3))")
        #expect(found.accepted > 0 && found.problems > 0 && found.refused > 0, "\(found)")
    }

    /// 200 recordings of 50 mutated lines each: `accepted` counts events read, `problems` lines refused, `refused`
    /// headers refused.
    private static func readMutatedRecordings(in directory: URL) throws -> Findings {
        var rng = SplitMix64(state: 0x5EED_0019)
        var found = Findings()
        for round in 0..<200 {
            let header =
                #"{"format": "carebridge-recording", "version": 1, "recordedAt": "\#(rng.pick(Self.times))"}"#
            var body: [String] = []
            for _ in 0..<50 {
                var line = rng.pick(Self.lines).replacingOccurrences(of: "T", with: rng.pick(Self.numbers))
                if rng.below(4) == 0, !line.isEmpty {  // and some random damage
                    var bytes = Array(line.utf8)
                    bytes[rng.below(bytes.count)] = UInt8(truncatingIfNeeded: rng.next())
                    line = String(decoding: bytes, as: UTF8.self)
                }
                body.append(line)
            }
            let path = directory.appendingPathComponent("\(round).jsonl").path
            try ([header] + body).joined(separator: "\n").write(toFile: path, atomically: false, encoding: .utf8)
            let reader: RecordingReader
            do {
                reader = try RecordingReader(path: path, logger: Logger(label: "fuzz"))
            } catch {
                found.refused += 1
                continue
            }
            if !Timestamp.isSupported(reader.header.recordedAt) {
                found.outOfRange.append("header of \(round): \(reader.header.recordedAt)")
            }
            while let item = reader.next() {
                switch item {
                case .event(let event):
                    found.accepted += 1
                    if !Timestamp.isSupported(event.event.time) { found.outOfRange.append("\(event.location)") }
                    _ = Timestamp.utcKey(event.event.time)
                case .problem: found.problems += 1
                }
            }
        }
        return found
    }

    @Test func theTimeParserNeverTrapsAndOnlyReturnsSupportedInstants() async {
        let found = await CPUBoundWork.run { Self.parseMutatedTimes() }
        #expect(found.outOfRange.isEmpty, "\(found.outOfRange.prefix(3))")
        #expect(found.accepted > 0)
    }

    /// 100 000 mutated timestamps: `accepted` counts those parsed.
    private static func parseMutatedTimes() -> Findings {
        var rng = SplitMix64(state: 0x7131_0019)
        let zones = [TimeZone(identifier: "UTC")!, TimeZone(identifier: "Pacific/Kiritimati")!]
        let alphabet = Array("0123456789-:T+Z. xa".utf8)
        var found = Findings()
        for _ in 0..<100_000 {
            var bytes = Array(rng.pick(Self.times).utf8)
            for _ in 0..<(1 + rng.below(3)) {
                switch rng.below(3) {
                case 0: bytes[rng.below(bytes.count)] = rng.pick(alphabet)
                case 1: bytes.removeLast(rng.below(min(bytes.count, 8)))
                default: bytes.append(rng.pick(alphabet))
                }
                if bytes.isEmpty { bytes = [0x30] }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            if let date = try? Timestamp.parse(text, in: rng.pick(zones), now: Date()) {
                found.accepted += 1
                if !Timestamp.isSupported(date) { found.outOfRange.append(text) }
            }
        }
        return found
    }
}
