public import CareBridgeExport
public import MQTTClient
import NIOCore

extension MQTTPublisher {
    /// Where and how the publisher delivers the store's outbox.
    public struct Configuration: Sendable {
        /// The broker, as `mqtt[s]://[user[:password]@]host[:port]`; ``MQTTSession/Configuration/tls`` for mqtts://.
        public var session: MQTTSession.Configuration
        /// Topics and discovery configs (prefixes `homeassistant` and `carebridge` by default).
        public var discovery: HomeAssistantDiscovery
        /// Entries read from the store per round.
        public var batchSize: Int
        /// How often the outbox is checked when nothing wakes the publisher (other processes may store samples).
        public var pollInterval: Duration
        /// How long the publisher, run as a service, waits for the outbox to drain at shutdown.
        public var drainTimeout: Duration

        /// A configuration for a broker URL; the last will (`<topic>/status` = `offline`, retained) is set here.
        ///
        /// - Parameters:
        ///   - brokerURL: `mqtt://host[:port]`, with optional credentials.
        ///   - discovery: topic prefixes.
        ///   - clientID: the MQTT client id; unique per running bridge.
        ///   - reconnectDelay: the delay before the first reconnect attempt; it doubles up to 30 s (or this delay
        ///     when it is longer).
        ///   - password: the broker password when it does not come with the URL (a file, the environment, a
        ///     systemd credential); it replaces the URL's.
        /// - Throws: ``MQTTClientError`` `.invalidURL`.
        public init(
            brokerURL: String,
            discovery: HomeAssistantDiscovery = HomeAssistantDiscovery(),
            clientID: String,
            reconnectDelay: Duration = .milliseconds(250),
            password: String? = nil
        ) throws(MQTTClientError) {
            var session = try MQTTSession.Configuration(url: brokerURL, clientID: clientID)
            if let password { session.password = ByteBuffer(string: password) }
            session.will = ConnectPacket.Will(
                topic: discovery.availabilityTopic,
                payload: .init(string: HomeAssistantDiscovery.notAvailablePayload),
                qos: .atLeastOnce,
                retain: true
            )
            session.keepAlive = .seconds(30)
            session.connectTimeout = .seconds(5)
            session.reconnectBackoff = MQTTSession.Configuration.Backoff(
                initial: reconnectDelay,
                maximum: max(reconnectDelay, .seconds(30))
            )
            self.session = session
            self.discovery = discovery
            self.batchSize = 256
            self.pollInterval = .seconds(1)
            self.drainTimeout = .seconds(30)
        }

        /// `url` with its password replaced by `***`, for messages and logs.
        public static func redacted(url: String) -> String { MQTTSession.Configuration.redacted(url: url) }

        /// Whether `url` carries a password.
        public static func hasPassword(url: String) -> Bool { MQTTSession.Configuration.hasPassword(url: url) }
    }

    /// What the publisher has done so far.
    public struct Statistics: Sendable, Hashable {
        /// Sample messages acknowledged by the broker (PUBACK) and removed from the outbox.
        public var delivered = 0
        /// Discovery configs acknowledged (each device and type once, again after a reconnect).
        public var configs = 0
        /// Entries dropped because their sample was deleted before it was published, or is quarantined.
        public var skipped = 0
        /// Retractions published for samples deleted after they were published.
        public var retracted = 0
        /// Entries dropped because their sample waits in the unassigned inbox of a store with several patients
        /// (assigning it queues it again).
        public var unassigned = 0
        /// Whether the broker has accepted the connection at least once.
        public var everConnected = false
        /// Why the last connection attempt failed (TLS, refused, unreachable), without credentials; nil once
        /// connected.
        public var lastConnectionError: String?
    }
}
