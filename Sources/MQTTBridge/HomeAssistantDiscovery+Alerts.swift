import BridgeCore
import BridgeFoundation

extension HomeAssistantDiscovery {
    /// A rule's level in its alert topics and Home Assistant ids, distinct for every (task, rule) pair.
    ///
    /// Ids of lowercase letters, digits and `-` are kept as they are, joined by the one `_`: `pain_pain-high` for
    /// task `pain`, rule `pain-high`. Any other pair (an `_`, capitals, spaces, other characters) is written as
    /// a readable slug (those characters as `-`), `_`, and 16 hex digits of the SHA-256 of the exact pair:
    /// `a-b_c_…` for task `a_b`, rule `c` (and `a_b-c_…` for task `a`, rule `b_c`). The two forms cannot meet (one `_` against two), so task `a` rule
    /// `b_c` and task `a_b` rule `c` no longer share a sensor.
    public static func alertKey(task: String, rule: String) -> String {
        func isPlain(_ id: String) -> Bool {
            !id.isEmpty && id.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
        }
        if isPlain(task), isPlain(rule) { return "\(task)_\(rule)" }
        func slug(_ id: String) -> String {
            String(
                id.lowercased().unicodeScalars.map { scalar -> Character in
                    ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) ? Character(scalar) : "-"
                }
            )
        }
        // The task's length first, so the pair is read back unambiguously before it is hashed.
        let pair = Array("\(task.utf8.count):\(task)\(rule)".utf8)
        let digest = SHA256.hash(pair).prefix(8).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        return "\(slug(task))_\(slug(rule))_\(digest)"
    }

    /// `<topicPrefix>/alert/<key>`: the level under which a rule's `state` (retained `ON`/`OFF`), `attributes`
    /// (retained alert JSON) and `event` (`{"change", "alert"}`) are published.
    public func alertTopic(task: String, rule: String) -> String {
        "\(topicPrefix)/alert/\(Self.alertKey(task: task, rule: rule))"
    }

    /// The retained discovery config of one rule's binary sensor at
    /// `<discoveryPrefix>/binary_sensor/carebridge_alert_<key>/config`: device class `problem`, on while the rule
    /// has an open alert, the latest alert as its attributes, every rule under one `CareBridge alerts` device; available
    /// while the bridge or `alerts deliver` runs (either publisher's availability, not a one-off replay's).
    public func alertConfig(task: String, rule: String) -> Message {
        let key = Self.alertKey(task: task, rule: rule)
        let base = alertTopic(task: task, rule: rule)
        var config: JSONObject = [
            "name": .string("\(task) \(rule)"),
            "unique_id": .string("carebridge_alert_\(key)"),
            "device_class": .string("problem"),
            "state_topic": .string("\(base)/state"),
            "json_attributes_topic": .string("\(base)/attributes"),
            "payload_on": .string("ON"),
            "payload_off": .string("OFF"),
            "device": .object([
                "identifiers": .array([.string("carebridge_alerts")]),
                "name": .string("CareBridge alerts"),
                "manufacturer": .string("CareBridge"),
            ]),
        ]
        // An open alert is only kept true while something delivers its changes: the bridge or `alerts deliver`.
        for member in availability([.bridge, .alerts]).members { config[member.key] = member.value }
        return Message(
            topic: "\(discoveryPrefix)/binary_sensor/carebridge_alert_\(key)/config",
            payload: .object(config),
            retain: true
        )
    }
}
