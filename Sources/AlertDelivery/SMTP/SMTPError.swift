/// Why an ``SMTPClient`` could not hand a message over: a code to switch on, a message for people (naming the
/// relay as `host:port`, never a credential), the underlying cause, and where it was raised.
public struct SMTPError: Error, Sendable, CustomStringConvertible {
    public enum Code: Sendable, Hashable {
        /// The TCP connection could not be opened, or broke before the relay accepted the message.
        case connectionFailed
        /// The relay did not answer within the client's timeout.
        case timedOut
        /// The relay does not offer STARTTLS, and the client was not told to go without TLS.
        case startTLSUnavailable
        /// The TLS handshake after STARTTLS failed (untrusted certificate, another name, not TLS).
        case tlsFailed
        /// The relay refused the credentials (or offers no `AUTH PLAIN`).
        case authenticationFailed
        /// The relay answered a command with an error reply (see ``reply``).
        case rejected
        /// The relay's answer was not SMTP (a line too long, no reply code).
        case protocolViolation
        /// An address or the message cannot be sent as given (a line break in an address, no `@`).
        case invalidMessage
        /// The client cannot be set up as configured (a CA file that cannot be read, no TLS to a remote relay).
        case invalidConfiguration
    }

    public var code: Code
    public var message: String
    /// The relay's reply when it answered with an error.
    public var reply: SMTPReply?
    public var cause: (any Error)?
    public var file: String
    public var line: Int

    public init(
        _ code: Code,
        _ message: String,
        reply: SMTPReply? = nil,
        cause: (any Error)? = nil,
        file: String = #fileID,
        line: Int = #line
    ) {
        self.code = code
        self.message = message
        self.reply = reply
        self.cause = cause
        self.file = file
        self.line = line
    }

    /// Whether trying again later may succeed: a broken or refused connection, a timeout, a 4xx reply. A 5xx
    /// reply, a TLS or credential problem, and an invalid message fail the same way every time.
    public var isTransient: Bool {
        switch code {
        case .connectionFailed, .timedOut: return true
        case .rejected: return reply?.isTransient ?? false
        case .startTLSUnavailable, .tlsFailed, .authenticationFailed, .protocolViolation, .invalidMessage,
            .invalidConfiguration:
            return false
        }
    }

    public var description: String { message }
}
