import BridgeCore
import CareBridgeKit
import CarePlan
import CareStore
import DeviceProfiles
import Foundation
import Logging
import SessionReplay
import Testing

/// The pipeline into a real SQLite store file: the weigh-in recording completes the plan's event once.
@Suite struct CareStoreSinkTests {
    static let zone = TimeZone(identifier: "Europe/Berlin")!

    func replay(into store: CareStore, recordedAt: Date) async throws -> (PipelineReport, CareStoreSink) {
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let sink = CareStoreSink(store: store, recordedAt: recordedAt)
        let report = try await PipelineRunner.replay(
            try ReplayTransport(
                path: PackageFixtures.recordings.appendingPathComponent("weight-scale-stored-burst.jsonl").path,
                logger: logger
            ),
            catalog: DeviceProfileLoader.load(directories: [PackageFixtures.devices]).catalog,
            configuration: PipelineConfiguration(timeZone: Self.zone),
            sink: sink,
            batchSize: 2,
            logger: logger
        )
        return (report, sink)
    }

    @Test func burstCompletesEachDaysEventOnceAndReplayingAgainAddsNothing() async throws {
        let directory = try PackageFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let store = try CareStore(
            path: directory.appendingPathComponent("store.sqlite").path,
            bridgeZone: Self.zone,
            logger: logger
        )
        let planData = try Data(contentsOf: PackageFixtures.recordings.appendingPathComponent("care-plan.json"))
        try store.applyPlan(try CarePlanDocument.parse(planData, path: "care-plan.json", bridgeZone: Self.zone))

        let (report, sink) = try await replay(into: store, recordedAt: Date(timeIntervalSince1970: 1_795_160_000))
        #expect(report.samples == 4)
        #expect(await sink.inserted == 4)
        let completed = try await sink.completedEvents()
        #expect(completed.map(\.taskID) == ["weigh-in", "weigh-in", "weigh-in", "weigh-in"])
        let days = completed.map { Timestamp.format($0.start, in: Self.zone).prefix(10) }.sorted()
        #expect(days == ["2026-11-16", "2026-11-17", "2026-11-18", "2026-11-19"])

        let (_, again) = try await replay(into: store, recordedAt: Date(timeIntervalSince1970: 1_795_170_000))
        #expect(await again.inserted == 0)
        #expect(await again.duplicates == 4)
        #expect(try await again.completedEvents().isEmpty)
        #expect(try store.sampleCount() == 4)
    }
}
