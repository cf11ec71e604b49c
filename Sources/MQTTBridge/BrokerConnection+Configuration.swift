public import MQTTClient
import NIOCore

extension BrokerConnection {
    /// The broker a process publishes to, the client id it connects with, and its availability topic (none for a
    /// one-off command, which leaves availability to the publishers that keep running).
    public struct Configuration: Sendable {
        /// The broker, as `mqtt[s]://[user[:password]@]host[:port]`; ``MQTTSession/Configuration/tls`` for mqtts://.
        /// Its last will is `offline` (retained) on ``availabilityTopic``.
        public var session: MQTTSession.Configuration

        /// Where the connection announces `online` and its last will says `offline`; nil: the connection announces
        /// no availability (no `online`, no last will, no `offline`).
        public var availabilityTopic: String? { session.will?.topic }

        /// The retained Home Assistant discovery config of the publisher's connectivity sensor, announced with
        /// `online` on every connect (see ``HomeAssistantDiscovery/publisherConfig(_:)``).
        public var publisherConfig: HomeAssistantDiscovery.Message?

        /// A configuration for a broker URL; the last will (`offline`, retained, on the availability topic) is set
        /// here.
        ///
        /// - Parameters:
        ///   - brokerURL: `mqtt://host[:port]`, with optional credentials.
        ///   - availabilityTopic: the publisher's topic of `online`/`offline`
        ///     (``HomeAssistantDiscovery/availabilityTopic(for:)``); nil for a one-off command.
        ///   - clientID: the MQTT client id; unique per running process.
        ///   - reconnectDelay: the delay before the first reconnect attempt; it doubles up to 30 s (or this delay
        ///     when it is longer).
        ///   - password: the broker password when it does not come with the URL (a file, the environment, a
        ///     systemd credential); it replaces the URL's.
        /// - Throws: ``MQTTClientError`` `.invalidURL`.
        public init(
            brokerURL: String,
            availabilityTopic: String? = HomeAssistantDiscovery().availabilityTopic,
            clientID: String,
            reconnectDelay: Duration = .milliseconds(250),
            password: String? = nil
        ) throws(MQTTClientError) {
            var session = try MQTTSession.Configuration(url: brokerURL, clientID: clientID)
            if let password { session.password = ByteBuffer(string: password) }
            session.will = availabilityTopic.map {
                ConnectPacket.Will(
                    topic: $0,
                    payload: .init(string: HomeAssistantDiscovery.notAvailablePayload),
                    qos: .atLeastOnce,
                    retain: true
                )
            }
            session.keepAlive = .seconds(30)
            session.connectTimeout = .seconds(5)
            session.reconnectBackoff = MQTTSession.Configuration.Backoff(
                initial: reconnectDelay,
                maximum: max(reconnectDelay, .seconds(30))
            )
            self.session = session
        }
    }
}
