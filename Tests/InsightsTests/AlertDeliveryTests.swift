import AlertDelivery
import CarePlan
import CareStore
import Foundation
import Insights
import Logging
import MQTTBridge
import Synchronization
import TestSupport
import Testing

@Suite struct AlertDeliveryTests {
    typealias F = AlertFixture
    static let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    /// A store with a pain rule and one open alert, the webhook channel on.
    static func storeWithAlert(channel: String) async throws -> (F, Alert) {
        let fixture = try F()
        try await fixture.store.enableAlertChannel(channel)
        try await fixture.store.addTask(
            F.pain([AlertRule(id: "high", severity: .critical, condition: .compare(.greaterThanOrEqual, 7, unit: nil))])
        )
        try await fixture.answer("pain", "8", at: F.time(2026, 11, 20, 9))
        try await AlertEngine.evaluate(store: fixture.store, from: F.time(2026, 11, 20), now: F.time(2026, 11, 20, 10))
        return (fixture, try #require(try await fixture.store.alerts().first))
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func theWebhookGetsEveryChangeInOrderAcrossAnOutageAndErrors() async throws {
        let (fixture, alert) = try await Self.storeWithAlert(channel: CareStore.webhookAlertChannel)
        let receiver = try HTTPReceiver()
        try await receiver.start()
        let port = receiver.port
        try await receiver.stop()  // the receiver is down

        let sender = try WebhookAlertSender(
            url: "http://127.0.0.1:\(port)/hooks/care?x=1",
            zone: F.berlin,
            timeout: .seconds(5)
        )
        var channel = AlertOutboxChannel(
            store: fixture.store,
            channel: CareStore.webhookAlertChannel,
            sender: sender,
            logger: Self.quiet
        )
        channel.initialRetry = .zero
        let down = await channel.deliverDue()
        #expect(down.delivered == 0 && down.failure?.contains("cannot post") == true)
        let kept = try await fixture.store.pendingAlertDeliveries(channel: CareStore.webhookAlertChannel, limit: 10)
        #expect(kept.count == 1 && kept.first?.attempts == 1 && kept.first?.lastError != nil)

        // Back, but failing: 503 keeps the notification.
        try await fixture.store.acknowledgeAlert(id: alert.id, by: "Nurse Kim")
        try await receiver.start()
        receiver.answer(503)
        let failing = await channel.deliverDue()
        #expect(failing.delivered == 0 && failing.failure?.contains("HTTP 503") == true)
        #expect(try await fixture.store.alertDeliveryCount(channel: CareStore.webhookAlertChannel) == 2)

        receiver.answer(204)
        let outbox = OutboxService(channel: channel, changes: nil, logger: Self.quiet)
        #expect(await outbox.drain(timeout: .seconds(180)) == 0)
        await outbox.stop()
        try await receiver.stop()
        let requests = receiver.requests
        #expect(requests.count == 3)  // the 503 attempt, then raised and acknowledged
        #expect(
            requests.allSatisfy { $0.path == "/hooks/care?x=1" && $0.headers["content-type"] == "application/json" }
        )
        let delivered = try requests.suffix(2).map { try Self.json($0.body) }
        #expect(delivered.map { $0["change"] as? String } == ["raised", "acknowledged"])
        let body = try #require(delivered.first?["alert"] as? [String: Any])
        #expect(body["id"] as? Int == Int(alert.id) && body["rule"] as? String == "high")
        #expect(body["severity"] as? String == "critical" && body["value"] as? Double == 8)
        #expect(requests[0].headers["idempotency-key"] == requests[1].headers["idempotency-key"])
    }

    @Test(.enabled(if: MosquittoBroker.testsEnabled, "needs mosquitto; \(MosquittoBroker.installHint)"))
    func homeAssistantGetsABinarySensorPerRuleThatTurnsOffWhenAcknowledged() async throws {
        let (fixture, alert) = try await Self.storeWithAlert(channel: CareStore.mqttAlertChannel)
        let broker = try MosquittoBroker()
        let connection = BrokerConnection(
            configuration: try BrokerConnection.Configuration(
                brokerURL: "mqtt://127.0.0.1:\(broker.port)",
                clientID: "alerts-test"
            ),
            logger: Self.quiet
        )
        let sender = MQTTAlertSender(
            store: fixture.store,
            connection: connection,
            discovery: HomeAssistantDiscovery(),
            zone: F.berlin
        )
        var channel = AlertOutboxChannel(
            store: fixture.store,
            channel: CareStore.mqttAlertChannel,
            sender: sender,
            logger: Self.quiet
        )
        channel.initialRetry = .zero
        // The broker is not running yet: the notification stays queued.
        let down = await channel.deliverDue()
        #expect(down.delivered == 0 && down.failure != nil)
        #expect(try await fixture.store.alertDeliveryCount(channel: CareStore.mqttAlertChannel) == 1)
        try broker.start()
        defer { broker.stop() }
        let subscriber = try await MosquittoSubscriber(broker: broker, topic: "carebridge/alert/#", count: 6)
        let outbox = OutboxService(channel: channel, changes: nil, logger: Self.quiet)
        #expect(await outbox.drain(timeout: .seconds(180)) == 0)
        try await fixture.store.acknowledgeAlert(id: alert.id, by: nil)
        #expect(await outbox.drain(timeout: .seconds(180)) == 0)
        await outbox.stop()
        await connection.stop()

        let messages = try await subscriber.messages()
        #expect(
            messages.map(\.topic) == [
                "carebridge/alert/pain_high/attributes", "carebridge/alert/pain_high/state",
                "carebridge/alert/pain_high/event",
                "carebridge/alert/pain_high/attributes", "carebridge/alert/pain_high/state",
                "carebridge/alert/pain_high/event",
            ]
        )
        #expect(messages.filter { $0.topic.hasSuffix("/state") }.map(\.payload) == ["ON", "OFF"])
        // A subscriber arriving later (Home Assistant restarting) gets the retained state.
        let late = try await MosquittoSubscriber(broker: broker, topic: "carebridge/alert/+/state", count: 1)
        let retained = try await late.messages()
        #expect(retained.map(\.payload) == ["OFF"] && retained.first?.retained == true)
        let events = try messages.filter { $0.topic.hasSuffix("/event") }.map { try Self.json($0.payload) }
        #expect(events.map { $0["change"] as? String } == ["raised", "acknowledged"])
        let config = try await MosquittoSubscriber(broker: broker, topic: "homeassistant/#", count: 1).messages()
        #expect(config.first?.topic == "homeassistant/binary_sensor/carebridge_alert_pain_high/config")
        #expect(config.first?.retained == true)
        let object = try Self.json(try #require(config.first?.payload))
        #expect(object["device_class"] as? String == "problem")
        #expect(object["state_topic"] as? String == "carebridge/alert/pain_high/state")
    }

    @Test func userAndPasswordInTheURLAreSentAsBasicAuthenticationNotInTheRequestLine() async throws {
        let (fixture, _) = try await Self.storeWithAlert(channel: CareStore.webhookAlertChannel)
        let receiver = try HTTPReceiver()
        try await receiver.start()
        defer { Task { try? await receiver.stop() } }
        let sender = try WebhookAlertSender(
            url: "http://alerts:p%40ss@127.0.0.1:\(receiver.port)/hook?k=1",
            zone: F.berlin,
            timeout: .seconds(5)
        )
        #expect(sender.target == "127.0.0.1:\(receiver.port)")
        var channel = AlertOutboxChannel(
            store: fixture.store,
            channel: CareStore.webhookAlertChannel,
            sender: sender,
            logger: Self.quiet
        )
        channel.initialRetry = .zero
        let outbox = OutboxService(channel: channel, changes: nil, logger: Self.quiet)
        #expect(await outbox.drain(timeout: .seconds(180)) == 0)
        await outbox.stop()
        let request = try #require(receiver.requests.first)
        #expect(request.path == "/hook?k=1")
        // base64("alerts:p@ss")
        #expect(request.headers["authorization"] == "Basic YWxlcnRzOnBAc3M=", "\(request.headers)")
    }

    @Test(.enabled(if: TestCertificateAuthority.opensslPath != nil, "needs openssl"))
    func anHTTPSWebhookIsPostedToAReceiverAPrivateCASignedAndTheTokenInItsURLIsNeverShown() async throws {
        let (fixture, alert) = try await Self.storeWithAlert(channel: CareStore.webhookAlertChannel)
        let authority = try TestCertificateAuthority()
        let server = try authority.issueServer(named: "receiver", dnsNames: ["localhost"])
        let receiver = try HTTPReceiver(certificate: (server.certificate, server.key))
        try await receiver.start()
        defer { Task { try? await receiver.stop() } }
        let url = "https://localhost:\(receiver.port)/hooks/t0ken-s3cret?key=k3y"

        // Without the private CA the certificate is not trusted: nothing is posted, the token is not shown.
        let untrusted = AlertOutboxChannel(
            store: fixture.store,
            channel: CareStore.webhookAlertChannel,
            sender: try WebhookAlertSender(url: url, zone: F.berlin, timeout: .seconds(5)),
            logger: Self.quiet
        )
        let refused = await untrusted.deliverDue()
        let failure = try #require(refused.failure)
        #expect(refused.delivered == 0 && failure.contains("localhost:\(receiver.port)"), "\(failure)")
        #expect(!failure.contains("t0ken") && !failure.contains("k3y"))
        let kept = try await fixture.store.pendingAlertDeliveries(
            channel: CareStore.webhookAlertChannel,
            limit: 10,
            now: Date().addingTimeInterval(3600)
        )
        let recorded = try #require(kept.first?.lastError)
        #expect(!recorded.contains("t0ken") && !recorded.contains("k3y"))
        #expect(receiver.requests.isEmpty)

        var trusted = AlertOutboxChannel(
            store: fixture.store,
            channel: CareStore.webhookAlertChannel,
            sender: try WebhookAlertSender(
                url: url,
                caFile: authority.certificate,
                zone: F.berlin,
                timeout: .seconds(5)
            ),
            logger: Self.quiet
        )
        trusted.initialRetry = .zero
        let outbox = OutboxService(channel: trusted, changes: nil, logger: Self.quiet)
        #expect(await outbox.drain(timeout: .seconds(180)) == 0)
        await outbox.stop()
        let requests = receiver.requests
        #expect(requests.map(\.path) == ["/hooks/t0ken-s3cret?key=k3y"])
        let body = try Self.json(try #require(requests.first?.body))
        #expect(body["change"] as? String == "raised")
        #expect((body["alert"] as? [String: Any])?["id"] as? Int == Int(alert.id))
    }

    @Test func aFailedNotificationIsRetriedWhenItsBackOffHasPassedOnTheClockAndNotBefore() async throws {
        let (fixture, _) = try await Self.storeWithAlert(channel: CareStore.webhookAlertChannel)
        let sender = FlakySender(failures: 1)
        let clock = ManualClock()
        let start = Date()
        var channel = AlertOutboxChannel(
            store: fixture.store,
            channel: CareStore.webhookAlertChannel,
            sender: sender,
            logger: Self.quiet
        )
        channel.initialRetry = .seconds(8)
        // The wall clock the retry time is stored in moves with the test's clock.
        channel.now = { start.addingTimeInterval(Double(clock.now.offset.components.seconds)) }
        let outbox = OutboxService(
            channel: channel,
            changes: nil,
            pollInterval: .seconds(3600),
            clock: clock,
            logger: Self.quiet
        )
        await outbox.start()
        // The first attempt fails; the loop then sleeps out the back-off.
        try await waitUntil("first attempt") { sender.attempts == 1 }
        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(7))
        #expect(clock.sleeperCount == 1, "still waiting out the back-off")
        #expect(sender.attempts == 1)
        clock.advance(by: .seconds(1))
        try await waitUntil("delivered after the back-off") {
            try await fixture.store.alertDeliveryCount(channel: CareStore.webhookAlertChannel) == 0
        }
        #expect(sender.attempts == 2)
        await outbox.stop()
    }
}

/// A receiver that fails its first `failures` attempts, then confirms.
final class FlakySender: AlertSender {
    struct Refused: Error {}
    private let state: Mutex<(attempts: Int, failures: Int)>

    init(failures: Int) { state = Mutex((0, failures)) }

    var attempts: Int { state.withLock { $0.attempts } }

    func send(_ delivery: AlertDelivery) async throws -> AlertSendReceipt {
        let fail = state.withLock { state -> Bool in
            state.attempts += 1
            return state.attempts <= state.failures
        }
        if fail { throw Refused() }
        return AlertSendReceipt()
    }
}
