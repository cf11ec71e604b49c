import BridgeCore
import BridgeRuntime
import CarePlan
import CareStore
import DeviceProfiles
import Foundation
import Logging
import SampleIngest
import ServiceLifecycle
import SessionReplay
import Synchronization
import TestSupport
import Testing

/// The bridge runtime as one ServiceGroup: the ingest into a real store, companion services started before and
/// shut down after it, a live transport stopped on graceful shutdown or after its duration, a replay cut short by
/// a shutdown keeping what it read.
@Suite struct BridgeTests {
    static let zone = TimeZone(identifier: "Europe/Berlin")!
    static let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
    static var catalog: DeviceCatalog { DeviceProfileLoader.load(directories: [PackageRoot.devices]).catalog }

    /// A live transport that yields nothing until stopped.
    final class IdleTransport: DeviceTransport {
        let stream: AsyncThrowingStream<TransportEvent, any Error>
        let continuation: AsyncThrowingStream<TransportEvent, any Error>.Continuation
        let reasons = Mutex<[Bridge.StopReason]>([])

        init() { (stream, continuation) = AsyncThrowingStream.makeStream() }

        func events() -> AsyncThrowingStream<TransportEvent, any Error> { stream }

        func stop(_ reason: Bridge.StopReason) {
            reasons.withLock { $0.append(reason) }
            continuation.finish()
        }
    }

    /// A companion that notes when it started and when it saw graceful shutdown.
    struct Companion: Service {
        let log: Box<[String]>

        func run() async throws {
            log.update { $0.append("companion started") }
            try? await gracefulShutdown()
            log.update { $0.append("companion stopping") }
        }
    }

    /// Shared, lockable state for the closures and services below.
    final class Box<Value: Sendable>: Sendable {
        private let value: Mutex<Value>
        init(_ value: Value) { self.value = Mutex(value) }
        var current: Value { value.withLock { $0 } }
        func update(_ body: @Sendable (inout Value) -> Void) { value.withLock { body(&$0) } }
    }

    func store(in directory: URL) async throws -> CareStore {
        let store = try CareStore(
            path: directory.appendingPathComponent("store.sqlite").path,
            bridgeZone: Self.zone,
            logger: Self.quiet
        )
        let planData = try Data(contentsOf: PackageRoot.recordings.appendingPathComponent("care-plan.json"))
        try await store.applyPlan(try CarePlanDocument.parse(planData, path: "care-plan.json", bridgeZone: Self.zone))
        return store
    }

    func recording(_ name: String, speed: ReplaySpeed = .max, opened: Box<[String]>? = nil) -> Bridge.Recording {
        let path = PackageRoot.recordings.appendingPathComponent(name).path
        return Bridge.Recording(path: path) {
            opened?.update { $0.append(name) }
            return try ReplayTransport(path: path, speed: speed, logger: Self.quiet)
        }
    }

    @Test func recordingsGoIntoTheStoreAndTheOutcomeNamesTheEventsTheyCompleted() async throws {
        let directory = try TemporaryDirectory.make()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await store(in: directory)
        let log = Box<[String]>([])
        let bridge = Bridge(
            source: .recordings([recording("weight-scale-stored-burst.jsonl")]),
            catalog: Self.catalog,
            configuration: PipelineConfiguration(timeZone: Self.zone),
            store: store,
            services: [Companion(log: log)],
            logger: Self.quiet
        )
        let outcome = try await bridge.run()
        #expect(outcome.report.samples == 4 && outcome.inserted == 4 && outcome.duplicates == 0)
        #expect(outcome.completed.map { $0.taskID } == ["weigh-in", "weigh-in", "weigh-in", "weigh-in"])
        #expect(outcome.interruptedIn == nil)
        // The ingest ending shut the group down: the companion was started and then stopped.
        #expect(log.current == ["companion started", "companion stopping"])

        let again = try await bridge.run()
        #expect(again.inserted == 0 && again.duplicates == 4 && again.completed.isEmpty)
    }

    @Test func aLiveTransportIsStoppedOnGracefulShutdownBeforeItsCompanions() async throws {
        let transport = IdleTransport()
        let log = Box<[String]>([])
        let bridge = Bridge(
            source: .live(transport) { reason in
                log.update { $0.append("ingest stopped (\(reason))") }
                transport.stop(reason)
            },
            catalog: Self.catalog,
            configuration: PipelineConfiguration(timeZone: Self.zone),
            store: nil,
            services: [Companion(log: log)],
            signals: [],
            logger: Self.quiet
        )
        // The bridge inside a parent group: the parent's graceful shutdown reaches it as a signal would.
        let outcome = Box<BridgeOutcome?>(nil)
        let parent = ServiceGroup(
            services: [BridgeService(bridge: bridge, outcome: outcome)],
            logger: Self.quiet
        )
        let running = Task { try await parent.run() }
        try await waitUntil("bridge", timeout: .seconds(300)) { log.current == ["companion started"] }
        await parent.triggerGracefulShutdown()
        try await running.value
        #expect(transport.reasons.withLock { $0 } == [.shutdown])
        #expect(log.current == ["companion started", "ingest stopped (shutdown)", "companion stopping"])
        #expect(outcome.current?.interruptedIn == nil)
    }

    @Test func aLiveTransportIsStoppedWhenItsDurationHasPassed() async throws {
        let transport = IdleTransport()
        let clock = ManualClock()
        let bridge = Bridge(
            source: .live(transport) { transport.stop($0) },
            catalog: Self.catalog,
            configuration: PipelineConfiguration(timeZone: Self.zone),
            store: nil,
            duration: .seconds(30),
            signals: [],
            clock: clock,
            logger: Self.quiet
        )
        let running = Task { try await bridge.run() }
        try await clock.waitForSleepers(1)  // the group started (slow on a loaded machine)
        clock.advance(by: .seconds(29))
        #expect(transport.reasons.withLock { $0 }.isEmpty)
        clock.advance(by: .seconds(1))
        let outcome = try await running.value
        #expect(transport.reasons.withLock { $0 } == [.duration])
        #expect(outcome.report.events == 0)
    }

    @Test func aShutdownCutsTheReplayShortKeepsWhatWasReadAndOpensNoFurtherFile() async throws {
        let directory = try TemporaryDirectory.make()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await store(in: directory)
        let opened = Box<[String]>([])
        let first = recording("heart-rate-strap-20-minutes.jsonl", speed: ReplaySpeed("5")!, opened: opened)
        let bridge = Bridge(
            source: .recordings([first, recording("weight-scale-stored-burst.jsonl", opened: opened)]),
            catalog: Self.catalog,
            configuration: PipelineConfiguration(timeZone: Self.zone),
            store: store,
            batchSize: 1,
            signals: [],
            logger: Self.quiet
        )
        let outcome = Box<BridgeOutcome?>(nil)
        let parent = ServiceGroup(services: [BridgeService(bridge: bridge, outcome: outcome)], logger: Self.quiet)
        let running = Task { try await parent.run() }
        try await waitUntil("bridge", timeout: .seconds(300)) { (try? await store.sampleCount()) ?? 0 >= 3 }
        await parent.triggerGracefulShutdown()
        try await running.value
        let result = try #require(outcome.current)
        #expect(result.interruptedIn == first.path)
        #expect(opened.current == ["heart-rate-strap-20-minutes.jsonl"])
        #expect(result.inserted >= 3 && result.inserted < 1200)
        #expect(try await store.sampleCount() == result.inserted)  // what was read is stored, and counted
    }

    /// Runs a bridge as a service of a parent group (so that the test can trigger its graceful shutdown).
    struct BridgeService: Service {
        let bridge: Bridge
        let outcome: Box<BridgeOutcome?>

        func run() async throws {
            let result = try await bridge.run()
            outcome.update { $0 = result }
        }
    }
}
