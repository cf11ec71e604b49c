import BridgeFoundation
public import CareStore
public import Foundation
import GATTDecoding
import Insights
public import Logging
public import MQTTClient

/// Publishes alert notifications to MQTT for Home Assistant: one binary sensor per rule (on while the rule has
/// an open alert; device class `problem`), with the latest alert as its attributes, plus an event message per
/// change.
///
/// Topics, per rule (`<key>` = `<task>_<rule>`, lower-cased, other characters as `_`):
/// `<prefix>/binary_sensor/carebridge_alert_<key>/config` (retained discovery config),
/// `<topic>/alert/<key>/state` (retained `ON`/`OFF`), `<topic>/alert/<key>/attributes` (retained alert JSON),
/// `<topic>/alert/<key>/event` (`{"change", "alert"}`, not retained). Everything QoS 1; a notification counts as
/// delivered when the broker acknowledged all of its messages.
public actor MQTTAlertSender {
    public let configuration: MQTTSession.Configuration
    public let topic: String
    public let prefix: String
    let store: CareStore
    let zone: TimeZone
    let logger: Logger
    var session: MQTTSession?
    var announced: Set<String> = []

    public init(
        store: CareStore,
        configuration: MQTTSession.Configuration,
        topic: String = "carebridge",
        prefix: String = "homeassistant",
        zone: TimeZone,
        logger: Logger
    ) {
        self.store = store
        var configuration = configuration
        if configuration.publishTimeout == nil { configuration.publishTimeout = .seconds(10) }
        self.configuration = configuration
        self.topic = topic
        self.prefix = prefix
        self.zone = zone
        self.logger = logger
    }

    /// `pain_pain_high` for task `pain`, rule `pain-high`.
    public static func key(task: String, rule: String) -> String {
        String("\(task)_\(rule)".lowercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }

    /// Publishes one notification (config once per rule and connection, state, attributes, event).
    public func send(_ delivery: AlertDelivery) async throws {
        let session = try await connected()
        let alert = delivery.alert
        let key = Self.key(task: alert.trip.taskID, rule: alert.trip.ruleID)
        let base = "\(topic)/alert/\(key)"
        if !announced.contains(key) {
            let config: JSONValue = .object([
                "name": .string("\(alert.trip.taskID) \(alert.trip.ruleID)"),
                "unique_id": .string("carebridge_alert_\(key)"),
                "device_class": .string("problem"),
                "state_topic": .string("\(base)/state"),
                "json_attributes_topic": .string("\(base)/attributes"),
                "payload_on": .string("ON"),
                "payload_off": .string("OFF"),
                "availability_topic": .string("\(topic)/status"),
                "device": .object([
                    "identifiers": .array([.string("carebridge_alerts")]),
                    "name": .string("CareBridge alerts"),
                    "manufacturer": .string("CareBridge"),
                ]),
            ])
            try await session.publish(
                topic: "\(prefix)/binary_sensor/carebridge_alert_\(key)/config",
                payload: config.serialized(),
                retain: true
            )
            announced.insert(key)
        }
        let open = try await store.alerts(includeClosed: false).contains {
            $0.trip.taskID == alert.trip.taskID && $0.trip.ruleID == alert.trip.ruleID
        }
        let json = alert.json(in: zone)
        try await session.publish(topic: "\(base)/attributes", payload: json.serialized(), retain: true)
        try await session.publish(topic: "\(base)/state", payload: open ? "ON" : "OFF", retain: true)
        let event: JSONValue = .object(["change": .string(delivery.change.rawValue), "alert": json])
        try await session.publish(topic: "\(base)/event", payload: event.serialized())
    }

    /// Disconnects cleanly.
    public func stop() async {
        await session?.disconnect()
        session = nil
    }

    func connected() async throws -> MQTTSession {
        if let session { return session }
        let session = MQTTSession(configuration: configuration, logger: logger)
        do {
            try await session.connect()
        } catch {
            await session.disconnect()
            throw error
        }
        try await session.publish(topic: "\(topic)/status", payload: "online", retain: true)
        announced = []
        self.session = session
        return session
    }
}
