import BridgeCore
import BridgeRuntime
import CarePlan
import CareStore
import DeviceProfiles
import Foundation
import Logging
import SampleIngest
import SessionReplay
import TestSupport
import Testing

/// The pipeline into a real SQLite store file: the weigh-in recording completes the plan's event once.
@Suite struct CareStoreSinkTests {
    static let zone = TimeZone(identifier: "Europe/Berlin")!

    func replay(
        _ recording: String = "weight-scale-stored-burst.jsonl",
        into store: CareStore,
        recordedAt: Date
    ) async throws -> (PipelineReport, CareStoreSink) {
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let sink = CareStoreSink(store: store, recordedAt: recordedAt)
        let report = try await PipelineRunner.replay(
            try ReplayTransport(
                path: PackageRoot.recordings.appendingPathComponent(recording).path,
                logger: logger
            ),
            catalog: DeviceProfileLoader.load(directories: [PackageRoot.devices]).catalog,
            configuration: PipelineConfiguration(timeZone: Self.zone),
            sink: sink,
            batchSize: 2,
            logger: logger
        )
        return (report, sink)
    }

    @Test func burstCompletesEachDaysEventOnceAndReplayingAgainAddsNothing() async throws {
        let directory = try TemporaryDirectory.make()
        defer { try? FileManager.default.removeItem(at: directory) }
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let store = try CareStore(
            path: directory.appendingPathComponent("store.sqlite").path,
            bridgeZone: Self.zone,
            logger: logger
        )
        let planData = try Data(contentsOf: PackageRoot.recordings.appendingPathComponent("care-plan.json"))
        try await store.applyPlan(try CarePlanDocument.parse(planData, path: "care-plan.json", bridgeZone: Self.zone))

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
        #expect(try await store.sampleCount() == 4)
    }

    @Test func anInterruptedDownloadLosesNothingAndTheRepeatBringsTheContextTheFirstCopyLacked() async throws {
        let directory = try TemporaryDirectory.make()
        defer { try? FileManager.default.removeItem(at: directory) }
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let store = try CareStore(
            path: directory.appendingPathComponent("store.sqlite").path,
            bridgeZone: Self.zone,
            logger: logger
        )
        let (report, sink) = try await replay(
            "glucose-meter-interrupted-download.jsonl",
            into: store,
            recordedAt: Date(timeIntervalSince1970: 1_795_160_000)
        )
        #expect(report.badEvents.isEmpty, "\(report.badEvents)")
        #expect(report.samples == 5, "records 1 and 2 of the cut-off download, then all three again")
        #expect(await sink.inserted == 3)
        #expect(await sink.duplicates == 2)
        let stored = try await store.samples(matching: SampleQuery()).map(\.sample).sorted { $0.start < $1.start }
        #expect(stored.map(\.value) == [106, 140, 120])
        let second = try #require(stored.dropFirst().first)
        #expect(second.metadata["sequenceNumber"] == "2")
        #expect(second.metadata["mealName"] == "postprandial", "\(second.metadata)")
        #expect(second.metadata["carbohydrateName"] == "breakfast", "\(second.metadata)")
        #expect(stored.first?.metadata["mealName"] == nil, "context goes only to its own sequence number")

        let (_, again) = try await replay(
            "glucose-meter-interrupted-download.jsonl",
            into: store,
            recordedAt: Date(timeIntervalSince1970: 1_795_170_000)
        )
        #expect(await again.inserted == 0)
        let after = try await store.samples(matching: SampleQuery()).map(\.sample).sorted { $0.start < $1.start }
        #expect(after.map(\.metadata) == stored.map(\.metadata), "a third copy changes nothing")
    }
}
