import Foundation
import MQTTClient
import NIOCore
import TestSupport
import Testing

/// Misbehaving brokers, played by ``ScriptedBroker``.
@Suite(.timeLimit(.minutes(5)))
struct MQTTSessionProtocolErrorTests {
    func session(port: Int, clock: ManualClock) -> MQTTSession {
        MQTTSession(
            configuration: .init(
                host: "127.0.0.1",
                port: port,
                clientID: "scripted",
                keepAlive: .zero,
                reconnectBackoff: .init(initial: .seconds(1), maximum: .seconds(1))
            ),
            clock: clock,
            logger: testLogger("scripted")
        )
    }

    @Test func malformedBytesFromTheBrokerDropTheConnectionWithATypedErrorAndTheSessionReconnects() async throws {
        // First connection: CONNACK, then a packet of reserved type 15. Later connections behave.
        let broker = try await ScriptedBroker { connection, packet in
            var reply = ScriptedBroker.standardReply(to: packet)
            if connection == 0, case .connect = packet { reply += [0xF0, 0x00] }
            return reply
        }
        let clock = ManualClock()
        let session = session(port: broker.port, clock: clock)
        let events = SessionEvents(session)
        try await session.connect()
        try await events.wait { if case .connectionLost = $0 { true } else { false } }
        let lost = try #require(
            events.all.compactMap { if case .connectionLost(let reason) = $0 { reason } else { nil } }.first
        )
        #expect(lost.contains("\(MQTTPacketError.unsupportedPacketType(raw: 15, offset: 0))"))

        let publish = Task { try await session.publish(topic: "after/garbage", payload: "ok") }
        try await eventually("publish queued") { await session.pendingPublishCount == 1 }
        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        try await publish.value
        #expect(broker.connectionCount == 2)
        let published = broker.packets.filter { $0.connection == 1 }.compactMap {
            if case .publish(let publish) = $0.packet { publish } else { nil }
        }
        #expect(published.map(\.topic) == ["after/garbage"])
        #expect(published.first?.dup == false)  // it was never sent before the reconnect
        await session.disconnect()
    }

    @Test func aPacketOtherThanConnackFailsTheFirstConnect() async throws {
        let broker = try await ScriptedBroker { _, packet in
            if case .connect = packet { return [0xD0, 0x00] }  // PINGRESP instead of CONNACK
            return []
        }
        let session = session(port: broker.port, clock: ManualClock())
        let error = await #expect(throws: MQTTClientError.self) { try await session.connect() }
        #expect(error?.code == .connectionFailed)
        #expect(error?.message.contains("pingresp") == true)
    }

    @Test func theConnectPacketCarriesWillCredentialsAndKeepAlive() async throws {
        let broker = try await ScriptedBroker { _, packet in ScriptedBroker.standardReply(to: packet) }
        let session = MQTTSession(
            configuration: .init(
                host: "127.0.0.1",
                port: broker.port,
                clientID: "with-will",
                cleanSession: false,
                keepAlive: .seconds(30),
                will: .init(
                    topic: "carebridge/status",
                    payload: .init(string: "offline"),
                    qos: .atLeastOnce,
                    retain: true
                ),
                username: "bridge",
                password: .init(string: "secret")
            ),
            clock: ManualClock(),
            logger: testLogger("with-will")
        )
        try await session.connect()
        let connect = try #require(
            broker.packets.compactMap { if case .connect(let connect) = $0.packet { connect } else { nil } }.first
        )
        #expect(connect.clientID == "with-will")
        #expect(connect.cleanSession == false)
        #expect(connect.keepAliveSeconds == 30)
        #expect(connect.will?.topic == "carebridge/status")
        #expect(connect.will.map { String(buffer: $0.payload) } == "offline")
        #expect(connect.will?.retain == true)
        #expect(connect.username == "bridge")
        #expect(connect.password.map { String(buffer: $0) } == "secret")
        await session.disconnect()
        try await eventually("DISCONNECT received") {
            broker.packets.contains { $0.packet == .disconnect }
        }
    }
}
