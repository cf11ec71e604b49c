import AlertDelivery
import CarePlan
import CareStore
import Foundation
import Insights
import Logging
import MQTTClient
import TestSupport
import Testing

@Suite struct AlertDeliveryTests {
    typealias F = AlertFixture
    static let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    /// A store with a pain rule and one open alert, the webhook channel on.
    static func storeWithAlert(channel: String) async throws -> (F, Alert) {
        let fixture = try F()
        try fixture.store.enableAlertChannel(channel)
        try fixture.store.addTask(
            F.pain([AlertRule(id: "high", severity: .critical, condition: .compare(.greaterThanOrEqual, 7, unit: nil))])
        )
        try fixture.answer("pain", "8", at: F.time(2026, 11, 20, 9))
        try await AlertEngine.evaluate(store: fixture.store, from: F.time(2026, 11, 20), now: F.time(2026, 11, 20, 10))
        return (fixture, try #require(try await fixture.store.alerts().first))
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func theWebhookGetsEveryChangeInOrderAcrossAnOutageAndErrors() async throws {
        let (fixture, alert) = try await Self.storeWithAlert(channel: CareStore.webhookAlertChannel)
        let receiver = HTTPReceiver()
        try await receiver.start()
        let port = receiver.port
        try await receiver.stop()  // the receiver is down

        let client = try WebhookClient(url: "http://127.0.0.1:\(port)/hooks/care?x=1", timeout: .seconds(5))
        let sender = WebhookAlertSender(client: client, zone: F.berlin)
        var deliverer = AlertDeliverer(store: fixture.store, channel: CareStore.webhookAlertChannel, logger: Self.quiet)
        {
            try await sender.send($0)
        }
        deliverer.initialRetry = 0
        let down = await deliverer.deliverDue()
        #expect(down.delivered == 0 && down.failure?.contains("cannot post") == true)
        let kept = try await fixture.store.pendingAlertDeliveries(channel: CareStore.webhookAlertChannel, limit: 10)
        #expect(kept.count == 1 && kept.first?.attempts == 1 && kept.first?.lastError != nil)

        // Back, but failing: 503 keeps the notification.
        try fixture.store.acknowledgeAlert(id: alert.id, by: "Nurse Kim")
        try await receiver.start()
        receiver.answer(503)
        let failing = await deliverer.deliverDue()
        #expect(failing.delivered == 0 && failing.failure?.contains("HTTP 503") == true)
        #expect(try await fixture.store.alertDeliveryCount(channel: CareStore.webhookAlertChannel) == 2)

        receiver.answer(204)
        #expect(await deliverer.drain(timeout: .seconds(20)) == 0)
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
        let sender = MQTTAlertSender(
            store: fixture.store,
            configuration: MQTTSession.Configuration(host: "127.0.0.1", port: broker.port, clientID: "alerts-test"),
            zone: F.berlin,
            logger: Self.quiet
        )
        var deliverer = AlertDeliverer(store: fixture.store, channel: CareStore.mqttAlertChannel, logger: Self.quiet) {
            try await sender.send($0)
        }
        deliverer.initialRetry = 0
        // The broker is not running yet: the notification stays queued.
        let down = await deliverer.deliverDue()
        #expect(down.delivered == 0 && down.failure != nil)
        #expect(try await fixture.store.alertDeliveryCount(channel: CareStore.mqttAlertChannel) == 1)
        try broker.start()
        defer { broker.stop() }
        let subscriber = try await MosquittoSubscriber(broker: broker, topic: "carebridge/alert/#", count: 6)
        #expect(await deliverer.drain(timeout: .seconds(20)) == 0)
        try fixture.store.acknowledgeAlert(id: alert.id, by: nil)
        #expect(await deliverer.drain(timeout: .seconds(20)) == 0)
        await sender.stop()

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
}
