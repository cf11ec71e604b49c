import BridgeCore
import DeviceProfiles
import Foundation
import Logging
import SampleIngest
import SessionReplay
import TestSupport
import Testing

/// Replay hands a batch to the sink while it reads the next one: batches still arrive one at a time and in
/// order, and a failing sink stops the replay with its error.
@Suite struct OverlappingReplayTests {
    static let zone = TimeZone(identifier: "Europe/Berlin")!
    static let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    struct SinkFailure: Error, Equatable {}

    /// Records each batch; fails on batch `failAt` (1-based) if set; checks that no two writes overlap.
    actor RecordingSink: SampleSink {
        var batches: [[QuantitySample]] = []
        var overlapped = false
        private var writing = false
        let failAt: Int?

        init(failAt: Int? = nil) { self.failAt = failAt }

        func write(_ samples: [QuantitySample]) async throws {
            if writing { overlapped = true }
            writing = true
            defer { writing = false }
            batches.append(samples)
            await Task.yield()
            if let failAt, batches.count == failAt { throw SinkFailure() }
        }
    }

    static func replay(into sink: any SampleSink, batchSize: Int) async throws -> PipelineReport {
        try await PipelineRunner.replay(
            try ReplayTransport(
                path: PackageRoot.recordings.appendingPathComponent("heart-rate-strap-20-minutes.jsonl").path,
                logger: logger
            ),
            catalog: DeviceProfileLoader.load(directories: [PackageRoot.devices]).catalog,
            configuration: PipelineConfiguration(timeZone: zone),
            sink: sink,
            batchSize: batchSize,
            logger: logger
        )
    }

    @Test func batchesArriveInPipelineOrderOneAtATime() async throws {
        let whole = SampleCollector()
        let report = try await Self.replay(into: whole, batchSize: 1_000_000)
        let sink = RecordingSink()
        let batched = try await Self.replay(into: sink, batchSize: 100)
        #expect(batched.samples == report.samples)
        #expect(batched.samplesByType == report.samplesByType)
        let batches = await sink.batches
        #expect(batches.count > 10)
        #expect(batches.flatMap { $0 } == (await whole.samples))
        #expect(await sink.overlapped == false)
    }

    @Test func aFailingWriteStopsTheReplayWithTheSinksError() async throws {
        let sink = RecordingSink(failAt: 2)
        await #expect(throws: SinkFailure.self) {
            _ = try await Self.replay(into: sink, batchSize: 100)
        }
        // The batch after the failed one may have been read, but it is never handed to the sink.
        #expect(await sink.batches.count == 2)
    }
}
