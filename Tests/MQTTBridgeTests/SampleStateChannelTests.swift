import BridgeCore
import CareStore
import Foundation
import Logging
import MQTTBridge
import ServiceLifecycle
import TestSupport
import Testing

/// The sample outbox (``SampleStateChannel`` in an ``OutboxService``) in process, against a real mosquitto.
@Suite(
    "The sample outbox with a real broker",
    .serialized,
    .enabled(if: MosquittoBroker.testsEnabled, "needs mosquitto; \(MosquittoBroker.installHint)")
)
struct SampleStateChannelTests {
    static let utc = TimeZone(identifier: "UTC")!
    static let scale = DeviceIdentity(address: "C8:47:8C:00:00:01", name: "Scale", manufacturer: "Acme Health")

    static func weight(_ kilograms: Double, minute: Int) -> QuantitySample {
        let start = Date(timeIntervalSince1970: 1_800_000_000 + Double(minute) * 60)
        return QuantitySample(
            type: .bodyMass,
            value: kilograms,
            unit: .kilogram,
            start: start,
            source: SampleSource(kind: .device, decoder: "weight-measurement", device: scale),
            receivedAt: start,
            rawPayload: [0x02, UInt8(minute), UInt8(Int(kilograms))]
        )
    }

    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The sample outbox service on a connection of its own to `broker`, queueing enabled; not started.
    static func publisher(
        _ store: CareStore,
        broker: MosquittoBroker,
        pollInterval: Duration = .seconds(1),
        clock: any Clock<Duration> = ContinuousClock()
    ) async throws -> OutboxService<SampleStateChannel> {
        let configuration = try BrokerConnection.Configuration(
            brokerURL: "mqtt://127.0.0.1:\(broker.port)",
            clientID: "publisher-\(UUID().uuidString.prefix(6))"
        )
        let connection = BrokerConnection(configuration: configuration, logger: quiet)
        let channel = SampleStateChannel(store: store, connection: connection, zone: utc, logger: quiet)
        try await channel.enable()
        return OutboxService(
            channel: channel,
            changes: store.changes(),
            pollInterval: pollInterval,
            clock: clock,
            logger: quiet
        )
    }

    @Test func deletedSamplesAreDroppedFromTheOutboxWithoutBeingPublished() async throws {
        let scratch = try ScratchDirectory("mqtt-bridge-")
        let broker = try MosquittoBroker()
        try broker.start()
        let store = try CareStore(path: scratch.path("store.sqlite"), bridgeZone: Self.utc, logger: Self.quiet)
        try await store.enableOutbox()
        let samples = (0..<4).map { Self.weight(70 + Double($0), minute: $0) }
        try await store.recordSamples(samples)
        try await store.deleteSample(id: samples[1].id)
        let subscriber = try await MosquittoSubscriber(broker: broker, topic: "carebridge/+/+", count: 3)

        let publisher = try await Self.publisher(store, broker: broker)
        await publisher.start()
        #expect(await publisher.drain(timeout: .seconds(180)) == 0)
        await publisher.stopWithConnection()

        let ids = try await subscriber.messages().map { try jsonObject($0.payload)["id"] as? String }
        #expect(ids == [samples[0], samples[2], samples[3]].map { $0.id.uuidString.lowercased() })
        let statistics = await publisher.statistics
        #expect(statistics.delivered == 3)
        #expect(statistics.skipped == 1)
        #expect(statistics.configs == 1)
        #expect(try await store.outboxCount() == 0)
    }

    @Test func discoveryConfigsAndAvailabilityAreRepublishedAfterTheBrokerRestarts() async throws {
        let scratch = try ScratchDirectory("mqtt-bridge-")
        let broker = try MosquittoBroker()
        try broker.start()
        let store = try CareStore(path: scratch.path("store.sqlite"), bridgeZone: Self.utc, logger: Self.quiet)
        let publisher = try await Self.publisher(store, broker: broker)
        await publisher.start()
        try await store.recordSamples([Self.weight(71, minute: 0)])
        #expect(await publisher.drain(timeout: .seconds(180)) == 0)

        // A broker without persistence forgets retained messages when it restarts.
        broker.stop()
        try broker.start()
        let topic = "homeassistant/sensor/carebridge_c8_47_8c_00_00_01/bodyMass/config"
        try await broker.waitForLog("'\(topic)'", count: 2)  // published before and again after the restart
        try await broker.waitForLog("'carebridge/status'", count: 2)
        let config = try await MosquittoSubscriber(broker: broker, topic: "homeassistant/#", count: 1)
        let messages = try await config.messages()
        #expect(messages.map(\.topic) == [topic])
        #expect(messages.first?.retained == true)
        let status = try await MosquittoSubscriber(broker: broker, topic: "carebridge/status", count: 1)
        #expect(try await status.messages().map(\.payload) == ["online"])
        await publisher.stopWithConnection()
    }

    @Test func aSampleStoredThroughTheStoreIsPublishedAtOnceWithoutWaitingForAPoll() async throws {
        let scratch = try ScratchDirectory("mqtt-bridge-")
        let broker = try MosquittoBroker()
        try broker.start()
        let store = try CareStore(path: scratch.path("store.sqlite"), bridgeZone: Self.utc, logger: Self.quiet)
        // A poll interval far beyond the test's bounds: only the store's change stream can wake the publisher.
        let clock = ManualClock()
        let publisher = try await Self.publisher(store, broker: broker, clock: clock)
        await publisher.start()
        // The first (empty) outbox read is done; the loop sleeps on a clock that never moves.
        try await clock.waitForSleepers(1)
        let subscriber = try await MosquittoSubscriber(broker: broker, topic: "carebridge/+/+", count: 1)
        let sample = Self.weight(72, minute: 3)
        try await store.recordSamples([sample])
        try await waitUntil("published", timeout: .seconds(120)) { await publisher.statistics.delivered == 1 }
        #expect(
            try await subscriber.messages().map { try jsonObject($0.payload)["id"] as? String } == [
                sample.id.uuidString.lowercased()
            ]
        )
        // Removed from the outbox once the batch is acknowledged (a moment after the count above).
        try await waitUntil("the outbox is empty", timeout: .seconds(180)) { (try? await store.outboxCount()) == 0 }
        await publisher.stopWithConnection()
    }

    @Test func aSampleStoredByAnotherStoreValueIsFoundByThePoll() async throws {
        let scratch = try ScratchDirectory("mqtt-bridge-")
        let broker = try MosquittoBroker()
        try broker.start()
        let path = scratch.path("store.sqlite")
        let store = try CareStore(path: path, bridgeZone: Self.utc, logger: Self.quiet)
        let clock = ManualClock()
        let publisher = try await Self.publisher(store, broker: broker, pollInterval: .seconds(5), clock: clock)
        await publisher.start()
        try await clock.waitForSleepers(1)
        // Another connection to the same file (as `carebridge ingest` beside the daemon): no change reaches the
        // publisher's store value, the outbox poll finds the sample once the poll interval has passed.
        let other = try CareStore(path: path, bridgeZone: Self.utc, logger: Self.quiet)
        try await other.recordSamples([Self.weight(73, minute: 4)])
        clock.advance(by: .seconds(4))
        #expect(await publisher.statistics.delivered == 0, "not before the poll")
        clock.advance(by: .seconds(1))
        // Published, then removed from the outbox once the batch is acknowledged (a moment later).
        try await waitUntil("published and removed from the outbox", timeout: .seconds(180)) {
            let removed = (try? await store.outboxCount()) == 0
            return await publisher.statistics.delivered == 1 && removed
        }
        #expect(await publisher.statistics.delivered == 1, "published once")
        await publisher.stopWithConnection()
    }

    @Test func asAServiceItDrainsTheOutboxAtGracefulShutdownAndAnnouncesOffline() async throws {
        let scratch = try ScratchDirectory("mqtt-bridge-")
        let broker = try MosquittoBroker()
        try broker.start()
        let store = try CareStore(path: scratch.path("store.sqlite"), bridgeZone: Self.utc, logger: Self.quiet)
        try await store.enableOutbox()
        try await store.recordSamples((0..<5).map { Self.weight(70 + Double($0), minute: $0) })
        let publisher = try await Self.publisher(store, broker: broker, pollInterval: .seconds(3600))
        // The connection first: the group shuts it down after the publisher has drained.
        let group = ServiceGroup(services: [publisher.channel.connection, publisher], logger: Self.quiet)
        let running = Task { try await group.run() }
        // Shut down at once: what is queued still goes out before the service ends.
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(await publisher.pendingAtStop == 0)
        #expect(await publisher.statistics.delivered == 5)
        #expect(try await store.outboxCount() == 0)
        let status = try await MosquittoSubscriber(broker: broker, topic: "carebridge/status", count: 1)
        #expect(try await status.messages().map(\.payload) == ["offline"])
    }
}

extension OutboxService where Channel == SampleStateChannel {
    /// What the channel has delivered so far.
    var statistics: SampleStateChannel.Statistics {
        get async { await channel.statistics }
    }

    /// Stops delivering, then the connection (`offline`, DISCONNECT).
    func stopWithConnection() async {
        await stop()
        await channel.connection.stop()
    }
}
