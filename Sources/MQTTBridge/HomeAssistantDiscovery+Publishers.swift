import BridgeFoundation

extension HomeAssistantDiscovery {
    /// A CareBridge process that keeps publishing and owns an availability topic: its connection announces `online`
    /// (retained) there, its last will says `offline`, and it says `offline` itself when it ends. One-off commands
    /// (`replay --mqtt`, `ingest --mqtt`) are no publisher: they leave availability as the publishers set it.
    public enum Publisher: String, Sendable, Hashable, CaseIterable {
        /// `carebridge run --mqtt`: samples and alerts while the bridge runs.
        case bridge
        /// `carebridge alerts deliver --mqtt`: alert sensors.
        case alerts

        var title: String {
            switch self {
            case .bridge: "CareBridge bridge"
            case .alerts: "CareBridge alert delivery"
            }
        }
    }

    /// `<topicPrefix>/status` for the bridge, `<topicPrefix>/<publisher>/status` for the others.
    public func availabilityTopic(for publisher: Publisher) -> String {
        switch publisher {
        case .bridge: availabilityTopic
        case .alerts: "\(topicPrefix)/\(publisher.rawValue)/status"
        }
    }

    /// The retained discovery config of a publisher's connectivity sensor
    /// (`<discoveryPrefix>/binary_sensor/carebridge_<publisher>/config`): on while the publisher runs, off when it
    /// ended or its connection died (its last will), under the `CareBridge` device. Readings are facts that stay
    /// true when the bridge stops, so their sensors keep their value; this sensor says whether new ones can come.
    public func publisherConfig(_ publisher: Publisher) -> Message {
        var origin: JSONObject = ["name": .string("CareBridge")]
        if let bridgeVersion { origin["sw_version"] = .string(bridgeVersion) }
        let config: JSONValue = .object([
            "name": .string(publisher.title),
            "unique_id": .string("carebridge_\(publisher.rawValue)_running"),
            "object_id": .string("carebridge_\(publisher.rawValue)_running"),
            "device_class": .string("connectivity"),
            "entity_category": .string("diagnostic"),
            "state_topic": .string(availabilityTopic(for: publisher)),
            "payload_on": .string(Self.availablePayload),
            "payload_off": .string(Self.notAvailablePayload),
            "device": .object([
                "identifiers": .array([.string("carebridge")]),
                "name": .string("CareBridge"),
                "manufacturer": .string("CareBridge"),
            ]),
            "origin": .object(origin),
        ])
        return Message(
            topic: "\(discoveryPrefix)/binary_sensor/carebridge_\(publisher.rawValue)/config",
            payload: config,
            retain: true
        )
    }

    /// Home Assistant's `availability` list for entities kept up to date by any of `publishers`: available while one
    /// of them runs (`availability_mode: any`).
    func availability(_ publishers: [Publisher]) -> JSONObject {
        [
            "availability": .array(
                publishers.map { .object(["topic": .string(availabilityTopic(for: $0))]) }
            ),
            "availability_mode": .string("any"),
            "payload_available": .string(Self.availablePayload),
            "payload_not_available": .string(Self.notAvailablePayload),
        ]
    }
}
