public import NIOCore

extension MQTTSession {
    /// Everything an ``MQTTSession`` needs to know about the broker and how to talk to it.
    public struct Configuration: Sendable {
        /// Delay before the n-th reconnect attempt: `initial × multiplier^n`, capped at `maximum`.
        public struct Backoff: Sendable, Hashable {
            public var initial: Duration
            public var maximum: Duration
            public var multiplier: Double

            public init(
                initial: Duration = .milliseconds(250),
                maximum: Duration = .seconds(30),
                multiplier: Double = 2
            ) {
                self.initial = initial
                self.maximum = maximum
                self.multiplier = multiplier
            }

            /// The delay before attempt `attempt` (0-based).
            public func delay(attempt: Int) -> Duration {
                var delay = initial
                for _ in 0..<min(attempt, 64) {
                    delay = .seconds(delay.seconds * multiplier)
                    if delay >= maximum { return maximum }
                }
                return min(delay, maximum)
            }
        }

        public var host: String
        public var port: Int
        public var clientID: String
        /// Ask the broker for a fresh session on every connect.
        public var cleanSession: Bool
        /// Interval between PINGREQs; a PINGRESP missing by the next tick counts as a dead connection.
        /// Sent to the broker in whole seconds; `.zero` turns keep-alive off.
        public var keepAlive: Duration
        public var will: ConnectPacket.Will?
        public var username: String?
        public var password: ByteBuffer?
        /// TLS to the broker (`mqtts://`); nil: plain TCP.
        public var tls: TLS?
        /// Limit for opening the TCP connection and for the CONNACK to arrive.
        public var connectTimeout: Duration
        /// How long a QoS 1 publish waits for its PUBACK, outages included; nil waits until disconnect.
        public var publishTimeout: Duration?
        public var reconnectBackoff: Backoff
        /// Most QoS 1 publishes waiting for PUBACK (sent or queued during an outage) at once.
        public var maximumPendingPublishes: Int

        public init(
            host: String,
            port: Int = 1883,
            clientID: String,
            cleanSession: Bool = true,
            keepAlive: Duration = .seconds(60),
            will: ConnectPacket.Will? = nil,
            username: String? = nil,
            password: ByteBuffer? = nil,
            tls: TLS? = nil,
            connectTimeout: Duration = .seconds(10),
            publishTimeout: Duration? = nil,
            reconnectBackoff: Backoff = Backoff(),
            maximumPendingPublishes: Int = 10_000
        ) {
            self.host = host
            self.port = port
            self.clientID = clientID
            self.cleanSession = cleanSession
            self.keepAlive = keepAlive
            self.will = will
            self.username = username
            self.password = password
            self.tls = tls
            self.connectTimeout = connectTimeout
            self.publishTimeout = publishTimeout
            self.reconnectBackoff = reconnectBackoff
            self.maximumPendingPublishes = maximumPendingPublishes
        }

        /// Sets ``password`` from text (a password file, the environment, a systemd credential).
        public mutating func setPassword(_ text: String) { password = ByteBuffer(string: text) }

        var connectPacket: ConnectPacket {
            let seconds = keepAlive.components.seconds + (keepAlive.components.attoseconds > 0 ? 1 : 0)
            return ConnectPacket(
                clientID: clientID,
                cleanSession: cleanSession,
                keepAliveSeconds: UInt16(clamping: seconds),
                will: will,
                username: username,
                password: password
            )
        }
    }

    /// A change in the session's connection, in order.
    public enum Event: Sendable, Hashable {
        /// CONNACK accepted; `sessionPresent` tells whether the broker kept the previous session.
        case connected(sessionPresent: Bool, reconnect: Bool)
        /// The connection ended unexpectedly; the session will try again after its back-off.
        case connectionLost(reason: String)
        /// A reconnect attempt failed.
        case reconnectFailed(attempt: Int, reason: String)
        /// ``MQTTSession/disconnect()`` finished; no further events follow.
        case closed
    }
}

extension Duration {
    /// The duration in (fractional) seconds.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
