import BridgeCore
import BridgeFoundation
import DeviceProfiles
import Foundation
import GATTDecoding
import Logging
import SampleIngest
import SessionReplay
import TestSupport
import Testing

/// Every recording under `Recordings/` is replayed through the whole pipeline and its normalised samples are
/// compared with `Tests/SampleIngestTests/Golden/<recording>.golden.jsonl` (re-recorded when
/// `RECORD_SNAPSHOTS` is set).
@Suite struct RecordingGoldenTests {
    static let recordings = PackageRoot.recordingNames
    /// `Tests/SampleIngestTests/Golden`.
    static let golden = PackageRoot.url.appendingPathComponent("Tests/SampleIngestTests/Golden")

    @Test("replays the recording and matches its golden file", arguments: recordings)
    func replayMatchesGolden(recording: String) async throws {
        let rendered = try await Self.render(recording: recording)
        let golden = Self.golden.appendingPathComponent(
            recording.replacingOccurrences(of: ".jsonl", with: ".golden.jsonl")
        )
        let existing = try? String(contentsOf: golden, encoding: .utf8)
        if PackageRoot.isRecordingSnapshots || existing == nil {
            try rendered.write(to: golden, atomically: true, encoding: .utf8)
            if existing == nil {
                Issue.record("golden file \(golden.lastPathComponent) was missing and has been recorded")
            }
            return
        }
        let expectedLines = existing!.split(separator: "\n", omittingEmptySubsequences: false)
        let actualLines = rendered.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(actualLines.count == expectedLines.count, "line count differs from \(golden.lastPathComponent)")
        for (number, (actual, expected)) in zip(actualLines, expectedLines).enumerated() where actual != expected {
            Issue.record(
                "\(golden.lastPathComponent):\(number + 1) differs\n  expected: \(expected)\n  actual:   \(actual)"
            )
            break
        }
    }

    @Test("every shipped recording has a golden file and no bad lines", arguments: recordings)
    func recordingIsClean(recording: String) async throws {
        let (report, _) = try await Self.replay(recording: recording)
        #expect(report.badEvents.isEmpty, "\(report.badEvents)")
        #expect(report.samples > 0)
        #expect(report.devices.allSatisfy { $0.profile != nil })
    }

    static func replay(recording: String) async throws -> (PipelineReport, [QuantitySample]) {
        let path = PackageRoot.recordings.appendingPathComponent(recording).path
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let transport = try ReplayTransport(path: path, logger: logger)
        let loaded = DeviceProfileLoader.load(directories: [PackageRoot.devices])
        let sink = SampleCollector()
        let report = try await PipelineRunner.replay(
            transport,
            catalog: loaded.catalog,
            configuration: PipelineConfiguration(timeZone: TimeZone(identifier: "UTC")!),
            sink: sink,
            logger: logger
        )
        return (report, await sink.samples)
    }

    /// The golden text: one line per device, then one compact line per sample, then bad lines.
    static func render(recording: String) async throws -> String {
        let (report, samples) = try await replay(recording: recording)
        let zone = TimeZone(identifier: "Europe/Berlin")!
        var lines: [String] = []
        for device in report.devices {
            var object: JSONObject = [:]
            let identity = device.identity
            for (key, value) in [
                ("address", identity.address), ("name", identity.name), ("profile", device.profile),
                ("manufacturer", identity.manufacturer), ("model", identity.model), ("serial", identity.serial),
                ("firmware", identity.firmware),
            ] {
                if let value { object[key] = .string(value) }
            }
            object["samples"] = .int(device.samples)
            lines.append(JSONValue.object(["device": .object(object)]).serialized())
        }
        for sample in samples {
            var object: JSONObject = [
                "id": .string(sample.id.uuidString.lowercased()),
                "type": .string(sample.type.rawValue),
                "value": .double(sample.value),
                "unit": .string(sample.unit.rawValue),
                "start": .string(Timestamp.format(sample.start, in: zone)),
            ]
            if sample.end != sample.start { object["end"] = .string(Timestamp.format(sample.end, in: zone)) }
            object["transmitted"] = .string("\(sample.transmittedValue) \(sample.transmittedUnit.rawValue)")
            if let deviceTime = sample.deviceTime { object["deviceTime"] = .string(deviceTime.description) }
            object["receivedAt"] = .string(Timestamp.format(sample.receivedAt, in: zone))
            if let offset = sample.clockOffset { object["clockOffset"] = .double(offset) }
            object["device"] = .string(sample.source.device?.key ?? "-")
            object["decoder"] = .string(sample.source.decoder ?? "-")
            if sample.index != 0 { object["index"] = .int(sample.index) }
            object["payload"] = .string(Hex.string(sample.rawPayload))
            if !sample.metadata.isEmpty {
                var metadata = JSONObject()
                for key in sample.metadata.keys.sorted() { metadata[key] = .string(sample.metadata[key]!) }
                object["metadata"] = .object(metadata)
            }
            lines.append(JSONValue.object(object).serialized())
        }
        for problem in report.badEvents {
            var text = problem.description
            text = text.replacingOccurrences(of: PackageRoot.recordings.path + "/", with: "")
            lines.append(JSONValue.object(["badLine": .string(text)]).serialized())
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
