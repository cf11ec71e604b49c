/// Why an ``MQTTSession`` operation failed: a code to switch on, a message for people, the underlying cause,
/// and where it was raised.
public struct MQTTClientError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public enum Code: Sendable, Hashable {
        /// The TCP connection could not be opened or broke during the handshake.
        case connectionFailed
        /// The broker answered CONNECT with a non-zero return code.
        case connectionRefused(ConnAckPacket.ReturnCode)
        /// No CONNACK arrived within the connect timeout.
        case connectTimedOut
        /// The operation needs a live connection (QoS 0 publish, subscribe) or ``MQTTSession/connect()`` first.
        case notConnected
        /// The session was closed with ``MQTTSession/disconnect()`` before the operation completed.
        case sessionClosed
        /// A QoS 1 publish was not acknowledged within the configured publish timeout.
        case publishTimedOut
        /// The queue of unacknowledged QoS 1 publishes is full.
        case queueFull
        /// The topic is not a valid PUBLISH topic name (empty or with a wildcard).
        case invalidTopic
        /// QoS 2 is not supported by this client.
        case unsupportedQoS
        /// The broker refused a subscription.
        case subscriptionRefused
        /// The connection was lost while waiting for an answer that is not retried (SUBACK).
        case connectionLost
        /// The caller's task was cancelled.
        case cancelled
        /// A broker URL was not `mqtt[s]://[user[:password]@]host[:port]`.
        case invalidURL
        /// TLS (`mqtts://`) could not be set up or the broker's certificate was not accepted.
        case tlsFailed(TLSFailure)
    }

    /// Why a TLS connection to the broker failed.
    public enum TLSFailure: Sendable, Hashable {
        /// A CA, certificate or key file cannot be read or holds nothing usable.
        case invalidConfiguration
        /// The broker's certificate does not chain to a trusted CA (or has expired, or is not yet valid).
        case untrustedCertificate
        /// The broker's certificate is valid but names another host.
        case hostnameMismatch
        /// The TLS handshake failed otherwise (not a TLS port, no common protocol, client certificate refused).
        case handshakeFailed
    }

    public var code: Code
    public var message: String
    public var cause: (any Error)?
    public var file: String
    public var line: Int

    public init(
        _ code: Code,
        _ message: String,
        cause: (any Error)? = nil,
        file: String = #fileID,
        line: Int = #line
    ) {
        self.code = code
        self.message = message
        self.cause = cause
        self.file = file
        self.line = line
    }

    /// The message, in words: it ends up in warnings people read (the journal, a terminal).
    public var description: String { message }

    /// The code, the message, the underlying cause and where the error was raised, for a debugger or a bug report.
    public var debugDescription: String {
        var text = "MQTT \(code): \(message)"
        if let cause { text += " (cause: \(cause))" }
        return text + " [\(file):\(line)]"
    }
}
