import BridgeCore
import Foundation
import SampleIngest
import TestSupport
import Testing

/// The pipeline report counts the stored records each device downloaded: the measurement values between the
/// bridge's RACP report-records write (`01 …`) and the device's `06` response. Expected counts are read off the
/// recordings' notes.
@Suite struct DownloadedRecordsTests {
    /// This test's directory for a recording variant, removed when the test ends.
    let scratch: ScratchDirectory

    init() throws { scratch = try ScratchDirectory("carebridge-") }

    func counts(_ path: String) async throws -> [String: Int] {
        let (report, _) = try await SessionReplayAnsweringTests.replay(path)
        #expect(report.badEvents.isEmpty, "\(report.badEvents)")
        var counts: [String: Int] = [:]
        for device in report.devices { counts[device.identity.key] = device.downloadedRecords }
        return counts
    }

    func recording(_ name: String) -> String { PackageRoot.recordings.appendingPathComponent(name).path }

    @Test(arguments: [
        // 3 records (seq 1–3) after `01 01`; contexts are not records.
        ("glucose-meter-racp.jsonl", "02:00:00:00:00:07", 3),
        // 3 on the first day; 1 (`01 06`, the last record again) and 2 (`01 03 01 04 00`, seq 4–5) on the second.
        ("glucose-meter-download-twice.jsonl", "02:00:00:00:00:27", 6),
        // 2 before the link was lost, then all 3 again on the next connection.
        ("glucose-meter-interrupted-download.jsonl", "02:00:00:00:00:32", 5),
        // 2; then the last record (1) and all 2 after the numbering restarted.
        ("glucose-meter-sequence-reset.jsonl", "02:00:00:00:00:28", 5),
        // Pulse-oximeter history: 2 spot-checks, then 3 the next day.
        ("pulse-oximeter-history.jsonl", "02:00:00:00:00:31", 5),
    ])
    func storedRecordsAreCountedPerDevice(recording name: String, device: String, records: Int) async throws {
        let counts = try await counts(recording(name))
        #expect(counts[device] == records, "\(counts)")
    }

    @Test func liveMeasurementsAreNotDownloadedRecords() async throws {
        let counts = try await counts(recording("blood-pressure-kpa.jsonl"))
        #expect(!counts.isEmpty)
        #expect(counts.values.allSatisfy { $0 == 0 }, "\(counts)")
    }

    @Test func aMeasurementAfterTheFinalResponseIsNotADownloadedRecord() async throws {
        // A fourth measurement (seq 4) after the `06` response: a sample, but not part of the download.
        let path = try SessionReplayAnsweringTests.variant("glucose-meter-racp.jsonl", in: scratch) { line in
            guard line.contains(#""value": "06000101""#) else { return line }
            return line + "\n"
                + #"{"t": 3.6, "kind": "notification", "device": "02:00:00:00:00:07", "characteristic": "2A18", "#
                + #""value": "020400ea070b130c2d008eb012"}"#
        }
        let (report, samples) = try await SessionReplayAnsweringTests.replay(path)
        #expect(report.badEvents.isEmpty, "\(report.badEvents)")
        #expect(samples.count == 4)
        #expect(report.devices.first { $0.identity.key == "02:00:00:00:00:07" }?.downloadedRecords == 3)
    }

    @Test func mergedReportsAddTheCounts() async throws {
        var total = PipelineReport()
        for name in ["glucose-meter-racp.jsonl", "pulse-oximeter-history.jsonl", "glucose-meter-racp.jsonl"] {
            let (report, _) = try await SessionReplayAnsweringTests.replay(recording(name))
            total.merge(report)
        }
        #expect(total.downloadedRecords == 3 + 5 + 3)
        #expect(total.devices.first { $0.identity.key == "02:00:00:00:00:07" }?.downloadedRecords == 6)
    }
}
