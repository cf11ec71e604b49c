import MQTTClient
import NIOCore
import Testing

@Suite struct MQTTSessionConfigurationTests {
    @Test(
        "broker URLs give host, port and credentials",
        arguments: [
            ("mqtt://broker.local", "broker.local", 1883, nil as String?, nil as String?),
            ("mqtt://broker.local:1884/", "broker.local", 1884, nil, nil),
            ("MQTT://10.0.0.2:8883", "10.0.0.2", 8883, nil, nil),
            ("mqtt://bridge@host", "host", 1883, "bridge", nil),
            ("mqtt://bridge:s3:cret@host:1999", "host", 1999, "bridge", "s3:cret"),
            ("mqtt://[::1]:1885", "::1", 1885, nil, nil),
            ("mqtt://[fe80::1]", "fe80::1", 1883, nil, nil),
        ]
    )
    func parsesBrokerURL(url: String, host: String, port: Int, username: String?, password: String?) throws {
        let configuration = try MQTTSession.Configuration(url: url, clientID: "c")
        #expect(configuration.host == host)
        #expect(configuration.port == port)
        #expect(configuration.username == username)
        #expect(configuration.password.map { String(buffer: $0) } == password)
        #expect(configuration.clientID == "c")
    }

    @Test(
        "malformed broker URLs are rejected",
        arguments: [
            "http://host", "mqttss://host", "host:1883", "mqtt://", "mqtt://host:0", "mqtt://host:65536",
            "mqtt://host:abc", "mqtt://host/topic", "mqtt://[::1", "mqtt://[::1]x", "mqtt://user@",
        ]
    )
    func rejectsMalformedURL(url: String) {
        let error = #expect(throws: MQTTClientError.self) { try MQTTSession.Configuration(url: url, clientID: "c") }
        #expect(error?.code == .invalidURL)
        #expect(error?.message.contains(url) == true)
    }

    /// A token in a query (or a fragment) is refused, and neither that refusal nor any other shows it.
    @Test(
        arguments: [
            "mqtt://host?token=s3cr3t", "mqtt://host:1883?token=s3cr3t", "mqtt://host/?token=s3cr3t",
            "mqtts://user:s3cr3t@host:99999", "mqtt://host#s3cr3t", "ftp://user:s3cr3t@host?s3cr3t",
        ]
    )
    func refusalsNeverShowAPasswordOrAQuery(url: String) {
        let error = #expect(throws: MQTTClientError.self) { try MQTTSession.Configuration(url: url, clientID: "c") }
        #expect(error?.code == .invalidURL)
        #expect(error?.message.contains("s3cr3t") == false, "\(error?.message ?? "")")
    }

    @Test func redactionMasksThePasswordAndTheQuery() {
        #expect(MQTTSession.Configuration.redacted(url: "mqtt://bridge:pw@host:1884") == "mqtt://bridge:***@host:1884")
        #expect(MQTTSession.Configuration.redacted(url: "mqtt://host/?token=t") == "mqtt://host/?***")
        #expect(MQTTSession.Configuration.redacted(url: "mqtt://u:p@host?t") == "mqtt://u:***@host?***")
        #expect(!MQTTSession.Configuration.hasPassword(url: "mqtt://host?token=t"))
        #expect(MQTTSession.Configuration.hasPassword(url: "mqtt://u:p@host"))
    }
}
