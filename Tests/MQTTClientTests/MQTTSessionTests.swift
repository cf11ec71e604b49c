import Foundation
import InMemoryLogging
import Logging
import NIOCore
import TestSupport
import Testing

@testable import MQTTClient

/// Makes a session for `broker` with a unique client id; `clock` nil means the real clock.
func makeSession(
    _ broker: MosquittoBroker,
    clientID: String = "cb-\(UUID().uuidString.prefix(8))",
    clock: ManualClock? = nil,
    logger: Logger? = nil,
    configure: (inout MQTTSession.Configuration) -> Void = { _ in }
) -> MQTTSession {
    let logger = logger ?? testLogger(clientID)
    var configuration = MQTTSession.Configuration(
        host: "127.0.0.1",
        port: broker.port,
        clientID: clientID,
        keepAlive: clock == nil ? .seconds(60) : .zero,
        reconnectBackoff: .init(initial: .seconds(1), maximum: .seconds(8))
    )
    configure(&configuration)
    if let clock {
        return MQTTSession(configuration: configuration, clock: clock, logger: logger)
    }
    return MQTTSession(configuration: configuration, logger: logger)
}

typealias Message = MosquittoSubscriber.Message

/// Polls `condition` in real time until it holds (bounded; TestSupport's `waitUntil`).
func eventually(
    timeout: Duration = .seconds(240),
    _ what: String,
    _ condition: () async -> Bool
) async throws {
    try await waitUntil(what, timeout: timeout, interval: .milliseconds(5), condition)
}

@Suite(
    "MQTTSession against a real mosquitto broker",
    .enabled(if: MosquittoBroker.testsEnabled),
    .timeLimit(.minutes(5))
)
struct MQTTSessionBrokerTests {
    @Test func qos1PublishesArriveExactlyWithPayloadsAndRetainFlags() async throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let live = try await MosquittoSubscriber(broker: broker, topic: "carebridge/#", count: 4)
        let session = makeSession(broker)
        try await session.connect()

        try await session.publish(topic: "carebridge/scale-1/bodyMass", payload: #"{"value":72.5}"#, retain: true)
        try await session.publish(topic: "carebridge/scale-1/bmi", payload: "22.4 ü", qos: .atLeastOnce)
        try await session.publish(topic: "carebridge/thermo/bodyTemperature", payload: "36.9", qos: .atMostOnce)
        try await session.publish(topic: "carebridge/thermo/bodyTemperature", payload: "37.0", retain: true)
        #expect(await session.pendingPublishCount == 0)

        // Live subscribers see retain 0 (MQTT-3.3.1-9) and the lower of publish and subscription QoS.
        #expect(
            try await live.messages() == [
                Message(topic: "carebridge/scale-1/bodyMass", retained: false, qos: 1, payload: #"{"value":72.5}"#),
                Message(topic: "carebridge/scale-1/bmi", retained: false, qos: 1, payload: "22.4 ü"),
                Message(topic: "carebridge/thermo/bodyTemperature", retained: false, qos: 0, payload: "36.9"),
                Message(topic: "carebridge/thermo/bodyTemperature", retained: false, qos: 1, payload: "37.0"),
            ]
        )
        // A late subscriber gets exactly the retained ones, flagged retained.
        let late = try await MosquittoSubscriber(broker: broker, topic: "carebridge/#", count: 2)
        #expect(
            try await late.messages().sorted { $0.topic < $1.topic } == [
                Message(topic: "carebridge/scale-1/bodyMass", retained: true, qos: 1, payload: #"{"value":72.5}"#),
                Message(topic: "carebridge/thermo/bodyTemperature", retained: true, qos: 1, payload: "37.0"),
            ]
        )
        await session.disconnect()
    }

    @Test func willIsPublishedWhenTheConnectionIsKilled() async throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let subscriber = try await MosquittoSubscriber(broker: broker, topic: "carebridge/bridge-1/status", count: 2)
        let session = makeSession(broker, clock: ManualClock()) {
            $0.will = .init(topic: "carebridge/bridge-1/status", payload: ByteBuffer(string: "offline"), retain: true)
        }
        try await session.connect()
        try await session.publish(topic: "carebridge/bridge-1/status", payload: "online", retain: true)
        await session.abortConnection()

        #expect(
            try await subscriber.messages() == [
                Message(topic: "carebridge/bridge-1/status", retained: false, qos: 1, payload: "online"),
                Message(topic: "carebridge/bridge-1/status", retained: false, qos: 1, payload: "offline"),
            ]
        )
        let late = try await MosquittoSubscriber(broker: broker, topic: "carebridge/bridge-1/status", count: 1)
        #expect(
            try await late.messages() == [
                Message(topic: "carebridge/bridge-1/status", retained: true, qos: 1, payload: "offline")
            ]
        )
        await session.disconnect()
    }

    @Test func gracefulDisconnectSendsDisconnectAndSuppressesTheWill() async throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let clientID = "graceful-\(UUID().uuidString.prefix(8))"
        let session = makeSession(broker, clientID: clientID) {
            $0.will = .init(topic: "carebridge/bridge-2/status", payload: ByteBuffer(string: "offline"), retain: true)
        }
        let events = SessionEvents(session)
        try await session.connect()
        try await session.publish(topic: "carebridge/bridge-2/status", payload: "online", retain: true)
        await session.disconnect()
        try await broker.waitForLog("Received DISCONNECT from \(clientID)")

        let late = try await MosquittoSubscriber(broker: broker, topic: "carebridge/bridge-2/status", count: 1)
        #expect(
            try await late.messages() == [
                Message(topic: "carebridge/bridge-2/status", retained: true, qos: 1, payload: "online")
            ]
        )
        let error = await #expect(throws: MQTTClientError.self) {
            try await session.publish(topic: "carebridge/x", payload: "late")
        }
        #expect(error?.code == .sessionClosed)
        try await events.wait { $0 == .closed }
    }

    @Test func reconnectsAfterBrokerRestartAndDeliversEveryPublishQueuedDuringTheOutage() async throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let clock = ManualClock()
        let logs = InMemoryLogHandler()
        let session = makeSession(broker, clock: clock, logger: Logger(label: "outage", factory: { _ in logs }))
        let events = SessionEvents(session)
        let before = try await MosquittoSubscriber(broker: broker, topic: "outage/#", count: 2)
        try await session.connect()
        try await session.publish(topic: "outage/sample", payload: "before-0")
        try await session.publish(topic: "outage/sample", payload: "before-1")
        #expect(try await before.messages().map(\.payload) == ["before-0", "before-1"])

        broker.stop()
        try await events.wait { if case .connectionLost = $0 { true } else { false } }
        #expect(await session.isConnected == false)

        // Publish during the outage, one at a time so the queue order is known.
        var publishes: [Task<Void, any Error>] = []
        for index in 0..<5 {
            publishes.append(Task { try await session.publish(topic: "outage/sample", payload: "during-\(index)") })
            try await eventually("publish \(index) queued") { await session.pendingPublishCount == index + 1 }
        }

        // One reconnect attempt while the broker is still down fails and backs off.
        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        try await events.wait { if case .reconnectFailed(attempt: 1, _) = $0 { true } else { false } }

        try broker.start()
        let after = try await MosquittoSubscriber(broker: broker, topic: "outage/#", count: 5)
        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))
        try await events.wait { $0 == .connected(sessionPresent: false, reconnect: true) }
        for publish in publishes { try await publish.value }

        #expect(
            try await after.messages()
                == (0..<5).map { Message(topic: "outage/sample", retained: false, qos: 1, payload: "during-\($0)") }
        )
        #expect(await session.pendingPublishCount == 0)

        // The logger saw the loss (warning) and the reconnect with the queue it flushed (info), with metadata.
        let lost = try #require(logs.entries.first { $0.message == "MQTT connection lost" })
        #expect(lost.level == .warning)
        #expect(lost.metadata["mqtt.broker"] == "127.0.0.1:\(broker.port)")
        let reconnected = try #require(logs.entries.first { $0.message == "MQTT reconnected" })
        #expect(reconnected.level == .info)
        #expect(reconnected.metadata["mqtt.pending"] == "5")
        #expect(logs.entries.contains { $0.message == "reconnect failed" && $0.level == .warning })
        await session.disconnect()
    }

    @Test func manyConcurrentQoS1PublishesAreEachAcknowledgedAndDelivered() async throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let count = 200
        let subscriber = try await MosquittoSubscriber(broker: broker, topic: "burst/#", count: count)
        let session = makeSession(broker)
        try await session.connect()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                group.addTask { try await session.publish(topic: "burst/\(index % 7)", payload: "m\(index)") }
            }
            try await group.waitForAll()
        }
        #expect(await session.pendingPublishCount == 0)
        let received = try await subscriber.messages()
        #expect(received.map(\.payload).sorted() == (0..<count).map { "m\($0)" }.sorted())
        #expect(received.allSatisfy { $0.qos == 1 && !$0.retained && $0.topic.hasPrefix("burst/") })
        await session.disconnect()
    }

    @Test func packetIdentifiersWrapFrom65535ToOne() async throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let clientID = "wrap-\(UUID().uuidString.prefix(8))"
        let session = makeSession(broker, clientID: clientID)
        try await session.connect()
        await session.setLastPacketID(65_534)
        for payload in ["a", "b", "c"] { try await session.publish(topic: "wrap/t", payload: payload) }
        for id in ["m65535", "m1", "m2"] {
            try await broker.waitForLog("Received PUBLISH from \(clientID) (d0, q1, r0, \(id), 'wrap/t'")
        }
        #expect(!broker.log.contains("Received PUBLISH from \(clientID) (d0, q1, r0, m0,"))
        await session.disconnect()
    }

    @Test func subscriptionsAreRenewedAfterTheBrokerRestarts() async throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let session = makeSession(broker) {
            $0.reconnectBackoff = .init(initial: .milliseconds(20), maximum: .milliseconds(200))
        }
        let events = SessionEvents(session)
        try await session.connect()
        #expect(try await session.subscribe([.init(topicFilter: "echo/#", qos: .atLeastOnce)]) == [.grantedQoS1])
        var iterator = session.messages.makeAsyncIterator()
        try await session.publish(topic: "echo/before", payload: "1")
        #expect(await iterator.next()?.topic == "echo/before")

        try broker.restart()
        try await events.wait { $0 == .connected(sessionPresent: false, reconnect: true) }
        try await session.publish(topic: "echo/after", payload: "2")
        let message = try #require(await iterator.next())
        #expect(message.topic == "echo/after")
        #expect(String(buffer: message.payload) == "2")
        await session.disconnect()
    }

    /// The keep-alive is a minute: the broker itself drops a client silent for 1.5 keep-alives of real time, which a
    /// loaded machine reached with 5 s while the test moved the manual clock.
    @Test func keepAliveSendsPingreqOnTheInjectedClock() async throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let clock = ManualClock()
        let clientID = "ping-\(UUID().uuidString.prefix(8))"
        let session = makeSession(broker, clientID: clientID, clock: clock) { $0.keepAlive = .seconds(60) }
        let events = SessionEvents(session)
        try await session.connect()
        try await broker.waitForLog("as \(clientID) (p2, c1, k60)")
        #expect(!broker.log.contains("Received PINGREQ from \(clientID)"))

        for tick in 1...3 {
            try await clock.waitForSleepers(1)
            clock.advance(by: .seconds(60))
            try await broker.waitForLog("Received PINGREQ from \(clientID)", count: tick)
            try await broker.waitForLog("Sending PINGRESP to \(clientID)", count: tick)
            try await eventually("PINGRESP \(tick) handled") { await !session.awaitingPingResponse }
        }
        #expect(await session.isConnected)
        #expect(events.all == [.connected(sessionPresent: false, reconnect: false)])
        await session.disconnect()
    }

    @Test func missingPingrespClosesTheConnectionAndTheSessionReconnects() async throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let clock = ManualClock()
        let session = makeSession(broker, clock: clock) { $0.keepAlive = .seconds(60) }
        let events = SessionEvents(session)
        try await session.connect()

        broker.pause()
        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(60))  // PINGREQ goes out; the frozen broker does not answer
        try await eventually("PINGREQ sent") { await session.awaitingPingResponse }
        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(60))  // still no PINGRESP: the connection is declared dead
        try await events.wait { if case .connectionLost = $0 { true } else { false } }
        broker.resume()

        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        try await events.wait { $0 == .connected(sessionPresent: false, reconnect: true) }
        try await session.publish(topic: "alive/again", payload: "yes")
        await session.disconnect()
    }

    @Test func unacknowledgedPublishIsSentAgainWithDupAfterReconnect() async throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let clock = ManualClock()
        let clientID = "dup-\(UUID().uuidString.prefix(8))"
        let session = makeSession(broker, clientID: clientID, clock: clock)
        let events = SessionEvents(session)
        try await session.connect()

        broker.pause()
        let publish = Task { try await session.publish(topic: "carebridge/dup", payload: "once") }
        try await eventually("publish in flight") { await session.pendingPublishCount == 1 }
        await session.abortConnection()
        try await events.wait { if case .connectionLost = $0 { true } else { false } }
        broker.resume()

        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        try await publish.value
        #expect(await session.pendingPublishCount == 0)
        try await broker.waitForLog("Received PUBLISH from \(clientID) (d0, q1, r0, m1, 'carebridge/dup'")
        try await broker.waitForLog("Received PUBLISH from \(clientID) (d1, q1, r0, m1, 'carebridge/dup'")
        await session.disconnect()
    }

    @Test func publishTimesOutWhenNoPubackArrives() async throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let clock = ManualClock()
        let session = makeSession(broker, clock: clock) { $0.publishTimeout = .seconds(3) }
        try await session.connect()
        broker.pause()
        let publish = Task { try await session.publish(topic: "carebridge/slow", payload: "x") }
        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(3))
        let error = await #expect(throws: MQTTClientError.self) { try await publish.value }
        #expect(error?.code == .publishTimedOut)
        #expect(await session.pendingPublishCount == 0)
        broker.resume()
        await session.disconnect()
    }

    @Test func disconnectFailsWaitingPublishesAndEndsTheSession() async throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let clock = ManualClock()
        let session = makeSession(broker, clock: clock)
        try await session.connect()
        try await session.connect()  // already connected: returns at once
        broker.pause()
        let publish = Task { try await session.publish(topic: "carebridge/never", payload: "x") }
        try await eventually("publish in flight") { await session.pendingPublishCount == 1 }
        await session.disconnect()
        let error = await #expect(throws: MQTTClientError.self) { try await publish.value }
        #expect(error?.code == .sessionClosed)
        #expect(await session.pendingPublishCount == 0)
        let again = await #expect(throws: MQTTClientError.self) { try await session.connect() }
        #expect(again?.code == .sessionClosed)
        var events: [MQTTSession.Event] = []
        for await event in session.events { events.append(event) }  // finished by disconnect()
        #expect(events == [.connected(sessionPresent: false, reconnect: false), .closed])
        broker.resume()
    }

    @Test func connectReportsTheBrokersRefusal() async throws {
        let broker = try MosquittoBroker(allowAnonymous: false)
        try broker.start()
        let session = makeSession(broker)
        let error = await #expect(throws: MQTTClientError.self) { try await session.connect() }
        #expect(error?.code == .connectionRefused(.notAuthorized))
        #expect(await session.isConnected == false)
    }

    @Test func connectTimesOutWhenNoConnackArrives() async throws {
        let broker = try MosquittoBroker()
        try broker.start()
        broker.pause()
        let clock = ManualClock()
        let session = makeSession(broker, clock: clock) { $0.connectTimeout = .seconds(4) }
        let connect = Task { try await session.connect() }
        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(4))
        let error = await #expect(throws: MQTTClientError.self) { try await connect.value }
        #expect(error?.code == .connectTimedOut)
        broker.resume()
    }

    @Test func subscribedMessagesArriveOnTheMessagesStream() async throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let session = makeSession(broker)
        try await session.connect()
        let granted = try await session.subscribe([.init(topicFilter: "echo/#", qos: .atLeastOnce)])
        #expect(granted == [.grantedQoS1])
        try await session.publish(topic: "echo/1", payload: "ping", retain: false)
        var iterator = session.messages.makeAsyncIterator()
        let message = try #require(await iterator.next())
        #expect(message.topic == "echo/1")
        #expect(String(buffer: message.payload) == "ping")
        #expect(message.qos == .atLeastOnce)
        await session.disconnect()
    }
}

@Suite struct MosquittoBrokerGateTests {
    @Test func brokerTestsRunWhenInstalledAndFailInsteadOfSkippingInCI() throws {
        #expect(MosquittoBroker.testsEnabled(installed: true, environment: [:]))
        #expect(MosquittoBroker.testsEnabled(installed: false, environment: ["CI": "true"]))
        #expect(!MosquittoBroker.testsEnabled(installed: false, environment: [:]))
        // Enabled without the tools, the helper throws, so the test fails with the install hint.
        let error = #expect(throws: MosquittoBroker.Failure.self) { try MosquittoBroker(installed: false) }
        #expect(error?.description.contains("apt-get install -y mosquitto mosquitto-clients") == true)
    }
}

@Suite struct MQTTSessionTests {
    @Test func connectFailsWhenNothingListens() async throws {
        let port = try MosquittoBroker.freeLoopbackPort()
        let session = MQTTSession(
            configuration: .init(host: "127.0.0.1", port: port, clientID: "nobody"),
            logger: testLogger("nobody")
        )
        let error = await #expect(throws: MQTTClientError.self) { try await session.connect() }
        #expect(error?.code == .connectionFailed)
    }

    @Test func publishingRejectsBadTopicsQoS2AndUnconnectedSessions() async throws {
        let session = MQTTSession(
            configuration: .init(host: "127.0.0.1", clientID: "offline"),
            logger: testLogger("offline")
        )
        let cases: [(String, QoS, MQTTClientError.Code)] = [
            ("a/+/b", .atLeastOnce, .invalidTopic),
            ("", .atMostOnce, .invalidTopic),
            ("a/b", .exactlyOnce, .unsupportedQoS),
            ("a/b", .atLeastOnce, .notConnected),
            ("a/b", .atMostOnce, .notConnected),
        ]
        for (topic, qos, code) in cases {
            let error = await #expect(throws: MQTTClientError.self) {
                try await session.publish(topic: topic, payload: "x", qos: qos)
            }
            #expect(error?.code == code, "\(topic) QoS \(qos)")
        }
    }

    @Test func backoffGrowsGeometricallyUpToItsMaximum() {
        let backoff = MQTTSession.Configuration.Backoff(
            initial: .milliseconds(250),
            maximum: .seconds(3),
            multiplier: 2
        )
        #expect(
            (0..<6).map { backoff.delay(attempt: $0) } == [
                .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(3), .seconds(3),
            ]
        )
    }

    @Test func keepAliveIsSentToTheBrokerInWholeSecondsRoundedUp() {
        var configuration = MQTTSession.Configuration(host: "h", clientID: "c", keepAlive: .milliseconds(1500))
        #expect(configuration.connectPacket.keepAliveSeconds == 2)
        configuration.keepAlive = .seconds(90_000)
        #expect(configuration.connectPacket.keepAliveSeconds == UInt16.max)
    }
}
