import BridgeFoundation

extension HomeAssistantDiscovery {
    /// `pain_pain_high` for task `pain`, rule `pain-high`: a rule's level in its alert topics and entity ids.
    public static func alertKey(task: String, rule: String) -> String {
        String("\(task)_\(rule)".lowercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }

    /// `<topicPrefix>/alert/<key>`: the level under which a rule's `state` (retained `ON`/`OFF`), `attributes`
    /// (retained alert JSON) and `event` (`{"change", "alert"}`) are published.
    public func alertTopic(task: String, rule: String) -> String {
        "\(topicPrefix)/alert/\(Self.alertKey(task: task, rule: rule))"
    }

    /// The retained discovery config of one rule's binary sensor at
    /// `<discoveryPrefix>/binary_sensor/carebridge_alert_<key>/config`: device class `problem`, on while the rule
    /// has an open alert, the latest alert as its attributes, every rule under one `CareBridge alerts` device.
    public func alertConfig(task: String, rule: String) -> Message {
        let key = Self.alertKey(task: task, rule: rule)
        let base = alertTopic(task: task, rule: rule)
        let config: JSONValue = .object([
            "name": .string("\(task) \(rule)"),
            "unique_id": .string("carebridge_alert_\(key)"),
            "device_class": .string("problem"),
            "state_topic": .string("\(base)/state"),
            "json_attributes_topic": .string("\(base)/attributes"),
            "payload_on": .string("ON"),
            "payload_off": .string("OFF"),
            "availability_topic": .string(availabilityTopic),
            "device": .object([
                "identifiers": .array([.string("carebridge_alerts")]),
                "name": .string("CareBridge alerts"),
                "manufacturer": .string("CareBridge"),
            ]),
        ])
        return Message(
            topic: "\(discoveryPrefix)/binary_sensor/carebridge_alert_\(key)/config",
            payload: config,
            retain: true
        )
    }
}
