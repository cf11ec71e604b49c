import BridgeCore
import DeviceProfiles
import Foundation
import GATTDecoding
import Logging
import SampleIngest
import SessionReplay
import TestSupport
import Testing

/// A recording answers the bridge's session steps: the recorded device's responses are delivered only after
/// the bridge wrote what the recording shows; any divergence is a problem at its line.
@Suite struct SessionReplayAnsweringTests {
    static let catalog = DeviceProfileLoader.load(directories: [PackageRoot.devices]).catalog
    static let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    /// This test's directory for the variants, removed when the test ends.
    let scratch: ScratchDirectory

    init() throws { scratch = try ScratchDirectory("carebridge-") }

    /// The recording with each line transformed (nil drops it), written to a file in `directory`.
    static func variant(
        _ recording: String,
        in directory: ScratchDirectory,
        _ transform: (String) -> String?
    ) throws -> String {
        let text = try String(contentsOf: PackageRoot.recordings.appendingPathComponent(recording), encoding: .utf8)
        let lines = text.split(separator: "\n").compactMap { transform(String($0)) }
        let url = directory.url(recording)
        try (lines.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    static func replay(_ path: String) async throws -> (PipelineReport, [QuantitySample]) {
        let sink = SampleCollector()
        let report = try await PipelineRunner.replay(
            try ReplayTransport(path: path, logger: logger),
            catalog: catalog,
            configuration: PipelineConfiguration(timeZone: TimeZone(identifier: "UTC")!),
            sink: sink,
            logger: logger
        )
        return (report, await sink.samples)
    }

    @Test func meterDownloadedTwiceAnswersEveryWriteWithoutDivergence() async throws {
        let path = PackageRoot.recordings.appendingPathComponent("glucose-meter-download-twice.jsonl").path
        let (report, samples) = try await Self.replay(path)
        #expect(report.badEvents.isEmpty, "\(report.badEvents)")
        #expect(samples.count == 6, "five records, the probe's repeat of record 3 included")
        #expect(Set(samples.map(\.id)).count == 5, "the repeat has the same identity, so the store keeps one")
        // The meter's clock was read at the second connection: 3 min behind, kept with that session's samples.
        let offsets = samples.map { $0.metadata["deviceClockOffset"] }
        #expect(offsets == [nil, nil, nil, "180", "180", "180"], "\(offsets)")
        #expect(samples.allSatisfy { $0.clockOffset == nil }, "3 min is within the skew tolerance: no correction")
    }

    @Test func anEvidentlyWrongClockIsCorrectedByTheMeasuredOffsetNotAnEstimate() async throws {
        // The meter's clock is 2 h ahead (read at connect), so its newest record lies an hour in the future.
        let path = try Self.variant("glucose-meter-download-twice.jsonl", in: scratch) { line in
            line.replacingOccurrences(of: "ea070b15071102060000", with: "ea070b15091402060000")
                .replacingOccurrences(of: "020500ea070b15061e0082b012", with: "020500ea070b1508140082b012")
        }
        let (report, samples) = try await Self.replay(path)
        #expect(report.badEvents.isEmpty, "\(report.badEvents)")
        let second = samples.filter { $0.metadata["deviceClockOffset"] != nil }
        #expect(second.allSatisfy { $0.clockOffset == -7200 }, "\(second.map(\.clockOffset))")
        let newest = try #require(second.last)
        #expect(
            newest.start
                == newest.deviceTime?.date(in: TimeZone(identifier: "Europe/Berlin")!)?.addingTimeInterval(-7200)
        )
    }

    @Test func aDifferentWriteIsADivergenceAndTheAnswersAfterItAreWithheld() async throws {
        let path = try Self.variant("glucose-meter-download-twice.jsonl", in: scratch) {
            $0.replacingOccurrences(of: #""value": "0103010400""#, with: #""value": "0103010500""#)
        }
        let (report, samples) = try await Self.replay(path)
        let divergence = try #require(report.badEvents.first)
        #expect(divergence.location?.line == 25)
        #expect(
            divergence.message.contains(
                "the bridge wrote 2A52 01 03 01 04 00 where the recording shows 2A52 01 03 01 05 00"
            )
        )
        #expect(report.badEvents.contains { $0.message.contains("4 recorded event(s)") })
        #expect(samples.count == 4, "records 4 and 5 were answers to the diverged write")
    }

    @Test func aWriteTheRecordingLacksIsReportedAtTheDisconnect() async throws {
        let path = try Self.variant("glucose-meter-racp.jsonl", in: scratch) {
            $0.contains(#""kind": "write""#) ? nil : $0
        }
        let (report, _) = try await Self.replay(path)
        #expect(
            report.badEvents.contains {
                $0.message.contains("the bridge wrote 2A52 04 01") && $0.message.contains("does not show")
            }
        )
    }

    @Test func aRecordedWriteTheBridgeDidNotMakeIsReported() async throws {
        let path = try Self.variant("glucose-meter-racp.jsonl", in: scratch) { line in
            line.contains(#""kind": "disconnected""#)
                ? #"{"t": 4.9, "kind": "write", "device": "02:00:00:00:00:07", "characteristic": "2A52", "value": "0201"}"#
                    + "\n" + line
                : line
        }
        let (report, _) = try await Self.replay(path)
        #expect(
            report.badEvents.contains {
                $0.message.contains("shows a write of 2A52 02 01 that the bridge did not make")
            }
        )
    }

    @Test func sequenceResetIsDownloadedAgainWithoutDuplicates() async throws {
        let path = PackageRoot.recordings.appendingPathComponent("glucose-meter-sequence-reset.jsonl").path
        let (report, samples) = try await Self.replay(path)
        #expect(report.badEvents.isEmpty, "\(report.badEvents)")
        #expect(Set(samples.map(\.id)).count == 4, "41, 42 and the new 1, 2; the probe's 2 again is the same sample")
    }

    @Test func multiUserScaleRegistersThenConsentsWithTheKeptSlot() async throws {
        let path = PackageRoot.recordings.appendingPathComponent("uds-scale-registration-and-consent.jsonl").path
        let (report, samples) = try await Self.replay(path)
        #expect(report.badEvents.isEmpty, "\(report.badEvents)")
        #expect(samples.map(\.value) == [72.5, 72.3])
    }

    @Test func withoutTheConsentCodeTheBridgeAsksNothingAndTheScaleSaysNothing() async throws {
        let path = try Self.variant("uds-scale-registration-and-consent.jsonl", in: scratch) { line in
            line.contains(#""format""#)
                ? line.replacingOccurrences(of: #""consentCode": 1234"#, with: #""other": 1"#) : line
        }
        let (report, samples) = try await Self.replay(path)
        #expect(
            report.badEvents.first?.message.contains("shows a write of 2A9F 01 D2 04 that the bridge did not make")
                == true
        )
        #expect(samples.isEmpty, "answers to writes the bridge did not make are not delivered")
    }

    @Test func pulseOximeterHistoryIsDownloadedReadOnlyAndTheRepeatsKeepTheirIdentity() async throws {
        let path = PackageRoot.recordings.appendingPathComponent("pulse-oximeter-history.jsonl").path
        let (report, samples) = try await Self.replay(path)
        #expect(report.badEvents.isEmpty, "\(report.badEvents)")
        #expect(samples.count == 10, "two spot-checks, then the same two and a new one, two samples each")
        let stored = Dictionary(samples.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(stored.count == 6, "the repeats have the same identity, so the store keeps three spot-checks")
        let oxygen = stored.values.filter { $0.type == .oxygenSaturation }.sorted { $0.start < $1.start }
        #expect(oxygen.map(\.value) == [96, 97, 98])
    }

    @Test func pulseOximeterWithoutTimeStampedHistoryIsNotAskedForIt() async throws {
        // Features 0x0004: storage, but spot-checks without time stamps (they could not be placed in time).
        let path = try Self.variant("pulse-oximeter-history.jsonl", in: scratch) { line in
            line.replacingOccurrences(of: #""value": "0c00""#, with: #""value": "0400""#)
        }
        let (report, samples) = try await Self.replay(path)
        #expect(
            report.badEvents.first?.message.contains("shows a write of 2A52 04 01 that the bridge did not make") == true
        )
        #expect(samples.isEmpty, "answers to writes the bridge did not make are not delivered")
    }

    @Test func currentTimeHandshakeIsAnsweredAtTheRecordedTime() async throws {
        let path = PackageRoot.recordings.appendingPathComponent("blood-pressure-current-time-handshake.jsonl").path
        let (report, samples) = try await Self.replay(path)
        #expect(report.badEvents.isEmpty, "\(report.badEvents)")
        #expect(samples.count == 8)
        let late = try Self.variant("blood-pressure-current-time-handshake.jsonl", in: scratch) { line in
            line.contains(#""kind": "write""#) ? line.replacingOccurrences(of: "071402", with: "071403") : line
        }
        #expect(try await Self.replay(late).0.badEvents.contains { $0.message.contains("divergence") })
    }

    @Test func aBatteryLevelReadAtConnectReachesTheSinkWithItsDevice() async throws {
        let path = PackageRoot.recordings.appendingPathComponent("weight-scale-morning-weigh-in.jsonl").path
        let sink = SampleCollector()
        _ = try await PipelineRunner.replay(
            try ReplayTransport(path: path, logger: Self.logger),
            catalog: Self.catalog,
            configuration: PipelineConfiguration(timeZone: TimeZone(identifier: "UTC")!),
            sink: sink,
            logger: Self.logger
        )
        let batteries = await sink.batteries
        #expect(batteries.map(\.level) == [90], "the recording's 2A19 read of 5a")
        #expect(batteries.first?.device.key == "02:00:00:00:00:01")
        // A value outside 0–100 % is not a level: logged, not kept.
        let broken = try Self.variant("weight-scale-morning-weigh-in.jsonl", in: scratch) {
            $0.replacingOccurrences(
                of: "\"characteristic\": \"2A19\", \"value\": \"5a\"",
                with: "\"characteristic\": \"2A19\", \"value\": \"c8\""
            )
        }
        let second = SampleCollector()
        _ = try await PipelineRunner.replay(
            try ReplayTransport(path: broken, logger: Self.logger),
            catalog: Self.catalog,
            configuration: PipelineConfiguration(timeZone: TimeZone(identifier: "UTC")!),
            sink: second,
            logger: Self.logger
        )
        #expect(await second.batteries.isEmpty)
        #expect(await second.samples.count == 3, "the weigh-in itself still stored")
    }
}
