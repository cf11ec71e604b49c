import BridgeFoundation
public import CareStore
public import Foundation
import GATTDecoding
import Insights
public import MQTTBridge
import MQTTClient

/// Publishes alert notifications to MQTT for Home Assistant, on the process's shared ``BrokerConnection``: one
/// binary sensor per rule (on while the rule has an open alert; device class `problem`), with the latest alert as
/// its attributes, plus an event message per change.
///
/// Topics, per rule (`<key>` = `<task>_<rule>`, lower-cased, other characters as `_`; see
/// ``HomeAssistantDiscovery/alertConfig(task:rule:)``): `<prefix>/binary_sensor/carebridge_alert_<key>/config`
/// (retained discovery config, announced once per connection), `<topic>/alert/<key>/state` (retained `ON`/`OFF`),
/// `<topic>/alert/<key>/attributes` (retained alert JSON), `<topic>/alert/<key>/event` (`{"change", "alert"}`, not
/// retained). Everything QoS 1; a notification counts as delivered when the broker acknowledged all of its
/// messages.
public struct MQTTAlertSender: AlertSender {
    public let connection: BrokerConnection
    public let discovery: HomeAssistantDiscovery
    /// The longest a notification may wait for the broker before the attempt fails (and is retried later).
    public var timeout: Duration = .seconds(10)
    /// Measures ``timeout``.
    public var clock: any Clock<Duration> = ContinuousClock()
    let store: CareStore
    let zone: TimeZone

    public init(store: CareStore, connection: BrokerConnection, discovery: HomeAssistantDiscovery, zone: TimeZone) {
        self.store = store
        self.connection = connection
        self.discovery = discovery
        self.zone = zone
    }

    /// Publishes one notification (config once per rule and connection, attributes, state, event).
    /// - Throws: ``MQTTClientError``: `.notConnected` until the connection (started here if need be) is up, `.publishTimedOut` when it
    ///   does not acknowledge within ``timeout``.
    /// - Returns: an empty receipt: a broker is no contact's inbox.
    public func send(_ delivery: AlertDelivery) async throws -> AlertSendReceipt {
        await connection.start()
        guard await connection.currentSession != nil else {
            throw MQTTClientError(.notConnected, "the MQTT broker is not connected")
        }
        let (timeout, clock) = (timeout, clock)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await publish(delivery) }
            group.addTask {
                try await clock.sleep(for: timeout)
                throw MQTTClientError(.publishTimedOut, "the broker did not acknowledge the alert within \(timeout)")
            }
            try await group.next()
            group.cancelAll()
        }
        return AlertSendReceipt()
    }

    func publish(_ delivery: AlertDelivery) async throws {
        let trip = delivery.alert.trip
        try await connection.announce(discovery.alertConfig(task: trip.taskID, rule: trip.ruleID))
        let open = try await store.alerts(includeClosed: false).contains {
            $0.trip.taskID == trip.taskID && $0.trip.ruleID == trip.ruleID
        }
        let base = discovery.alertTopic(task: trip.taskID, rule: trip.ruleID)
        let json = delivery.alert.json(in: zone)
        try await connection.publish(topic: "\(base)/attributes", payload: json.serialized(), retain: true)
        try await connection.publish(topic: "\(base)/state", payload: open ? "ON" : "OFF", retain: true)
        let event: JSONValue = .object(["change": .string(delivery.change.rawValue), "alert": json])
        try await connection.publish(topic: "\(base)/event", payload: event.serialized(), retain: false)
    }
}
