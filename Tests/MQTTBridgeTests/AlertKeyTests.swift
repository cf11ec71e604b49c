import BridgeFoundation
import MQTTBridge
import Testing

/// Alert topics and Home Assistant ids name one (task, rule) pair each: task `a` rule `b_c` and task `a_b` rule
/// `c` used to share `a_b_c`, so acknowledging one rule's alert turned the other's open critical alert `OFF`.
@Suite struct AlertKeyTests {
    let discovery = HomeAssistantDiscovery(discoveryPrefix: "homeassistant", topicPrefix: "carebridge")

    /// Pairs that the old key (lowercased, every other character `_`) folded together.
    static let collisions: [[(String, String)]] = [
        [("a", "b_c"), ("a_b", "c")],
        [("pain", "pain-high"), ("pain", "pain_high"), ("pain-pain", "high"), ("pain", "pain.high")],
        [("weigh", "In"), ("weigh", "in"), ("Weigh", "in")],
        [("a", "b c"), ("a b", "c"), ("a", "b_c"), ("a_b", "c"), ("a", "b-c")],
        [("a", "_"), ("a_", ""), ("a", "__")],
    ]

    @Test(arguments: collisions)
    func pairsTheOldKeyFoldedTogetherGetKeysTopicsAndSensorsOfTheirOwn(pairs: [(String, String)]) {
        let keys = pairs.map { HomeAssistantDiscovery.alertKey(task: $0.0, rule: $0.1) }
        #expect(Set(keys).count == pairs.count, "\(keys)")
        let topics = pairs.map { discovery.alertTopic(task: $0.0, rule: $0.1) }
        #expect(Set(topics).count == pairs.count, "\(topics)")
        let configs = pairs.map { discovery.alertConfig(task: $0.0, rule: $0.1).topic }
        #expect(Set(configs).count == pairs.count, "\(configs)")
    }

    @Test func keysStayWithinHomeAssistantObjectIDCharacters() {
        for (task, rule) in Self.collisions.joined() {
            let key = HomeAssistantDiscovery.alertKey(task: task, rule: rule)
            #expect(
                key.allSatisfy {
                    ($0.isLetter && $0.isLowercase && $0.isASCII) || $0.isNumber || $0 == "_" || $0 == "-"
                },
                "\(key)"
            )
        }
    }

    @Test func ordinaryNamesStayReadable() {
        #expect(HomeAssistantDiscovery.alertKey(task: "pain", rule: "high") == "pain_high")
        #expect(HomeAssistantDiscovery.alertKey(task: "pain", rule: "pain-high") == "pain_pain-high")
        #expect(discovery.alertTopic(task: "bp", rule: "sys-180") == "carebridge/alert/bp_sys-180")
        let hashed = HomeAssistantDiscovery.alertKey(task: "a_b", rule: "c")
        #expect(hashed.hasPrefix("a-b_c_"), "\(hashed)")
        #expect(hashed.count == "a-b_c_".count + 16)
        #expect(hashed == HomeAssistantDiscovery.alertKey(task: "a_b", rule: "c"), "stable across calls")
    }
}
