import CareUploads
import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// A small SMTP submission client (RFC 5321) on SwiftNIO: one connection per message, `EHLO`, `STARTTLS`
/// (required unless the configuration says ``Configuration/Security-swift.enum/insecureLoopback`` for a relay on
/// this machine), `AUTH PLAIN` when credentials are given, `MAIL FROM`, one `RCPT TO` per recipient, `DATA` with
/// the message dot-stuffed, `QUIT`.
///
/// A recipient the relay refuses for good (5xx) is reported in the result and the others still get the message;
/// a recipient refused for now (4xx) makes the whole attempt fail before `DATA`, so a retry never sends a second
/// copy to those that accepted. Errors name the relay as `host:port`; credentials never appear in them.
public struct SMTPClient: Sendable {
    /// Where and how to reach the relay.
    public struct Configuration: Sendable {
        public enum Security: Sendable, Hashable {
            /// Plain connection, then `STARTTLS`; the relay's certificate must chain to the CA in `caFile` (the
            /// system's trust store when nil) and name the host. A relay without STARTTLS is refused.
            case startTLS(caFile: String?)
            /// No TLS at all: only to a relay on the loopback interface (a local MTA such as Postfix or exim).
            case insecureLoopback
        }

        /// A user name and password for `AUTH PLAIN` (only ever sent after STARTTLS, or to the loopback relay).
        public struct Credentials: Sendable, Hashable, CustomStringConvertible {
            public var user: String
            public var password: String

            public init(user: String, password: String) {
                self.user = user
                self.password = password
            }

            public var description: String { "credentials of \(user)" }
        }

        public var host: String
        public var port: Int
        public var security: Security
        public var credentials: Credentials?
        /// The name the client gives in `EHLO`.
        public var clientName: String
        /// The longest a whole exchange may take, connection included.
        public var timeout: Duration

        public init(
            host: String,
            port: Int = 587,
            security: Security = .startTLS(caFile: nil),
            credentials: Credentials? = nil,
            clientName: String = "carebridge.localdomain",
            timeout: Duration = .seconds(30)
        ) {
            self.host = host
            self.port = port
            self.security = security
            self.credentials = credentials
            self.clientName = clientName
            self.timeout = timeout
        }

        /// `host:port`, for messages.
        public var relay: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

        /// Whether `host` is this machine (`localhost`, 127.0.0.0/8, `::1`).
        public static func isLoopback(_ host: String) -> Bool { HTTPSEndpoint.isLoopback(host) }
    }

    /// What happened to each recipient of a message the relay took.
    public struct Result: Sendable, Hashable {
        /// The addresses the relay accepted the message for.
        public var accepted: [String]
        /// The addresses it refused for good, with its reply (a refused message: every recipient, the `DATA` reply).
        public var rejected: [Rejection]
    }

    /// A recipient refused for good.
    public struct Rejection: Sendable, Hashable {
        public var address: String
        public var reply: SMTPReply
    }

    public let configuration: Configuration
    let tlsContext: NIOSSLContext?
    let clock: any Clock<Duration>

    /// - Throws: ``SMTPError`` `.invalidConfiguration` for a port outside 1…65535, `insecureLoopback` with a
    ///   relay that is not on this machine, or a CA file that cannot be read.
    public init(configuration: Configuration, clock: any Clock<Duration> = ContinuousClock()) throws(SMTPError) {
        guard (1...65535).contains(configuration.port) else {
            throw SMTPError(.invalidConfiguration, "port \(configuration.port) is out of range (1…65535)")
        }
        self.configuration = configuration
        self.clock = clock
        switch configuration.security {
        case .insecureLoopback:
            guard Configuration.isLoopback(configuration.host) else {
                throw SMTPError(
                    .invalidConfiguration,
                    "without TLS only a relay on this machine may be used, not \(configuration.relay)"
                )
            }
            tlsContext = nil
        case .startTLS(let caFile):
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.minimumTLSVersion = .tlsv12
            if let caFile {
                do {
                    tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caFile))
                } catch {
                    throw SMTPError(.invalidConfiguration, "cannot read the CA file \(caFile): \(error)", cause: error)
                }
            }
            do {
                tlsContext = try NIOSSLContext(configuration: tls)
            } catch {
                throw SMTPError(.invalidConfiguration, "cannot set up TLS: \(error)", cause: error)
            }
        }
    }

    /// Hands `message` to the relay for the addresses of its `To` header.
    /// - Returns: which recipients the relay accepted and which it refused for good (5xx).
    /// - Throws: ``SMTPError``: nothing was sent (``SMTPError/isTransient`` says whether a retry may succeed).
    public func send(_ message: EmailMessage) async throws(SMTPError) -> Result {
        try EmailMessage.Mailbox.check(message.from.address)
        for recipient in message.to { try EmailMessage.Mailbox.check(recipient.address) }
        var exchange = try await SMTPExchange.open(configuration, clock: clock)
        defer { exchange.close() }
        let result = try await deliver(message, over: &exchange)
        await exchange.quit()
        return result
    }

    func deliver(_ message: EmailMessage, over exchange: inout SMTPExchange) async throws(SMTPError) -> Result {
        let relay = configuration.relay
        try exchange.expect(try await exchange.reply(), 220, "greeting")
        var hello = try await exchange.command("EHLO \(configuration.clientName)")
        try exchange.expect(hello, 250, "EHLO")
        if let tlsContext {
            guard hello.offers("STARTTLS") else {
                throw SMTPError(
                    .startTLSUnavailable,
                    "the relay \(relay) does not offer STARTTLS (use port 587 or a relay with TLS; --smtp-insecure "
                        + "is only for a relay on this machine)"
                )
            }
            try exchange.expect(try await exchange.command("STARTTLS"), 220, "STARTTLS")
            try await exchange.startTLS(tlsContext, host: configuration.host)
            hello = try await exchange.command("EHLO \(configuration.clientName)")
            try exchange.expect(hello, 250, "EHLO after STARTTLS")
        }
        if let credentials = configuration.credentials {
            guard hello.offers("AUTH", parameter: "PLAIN") else {
                throw SMTPError(.authenticationFailed, "the relay \(relay) does not offer AUTH PLAIN")
            }
            let token = Data("\u{0}\(credentials.user)\u{0}\(credentials.password)".utf8).base64EncodedString()
            let answer = try await exchange.command("AUTH PLAIN \(token)")
            guard answer.code == 235 else {
                throw SMTPError(
                    .authenticationFailed,
                    "the relay \(relay) refused the credentials of \(credentials.user) (\(answer))",
                    reply: answer
                )
            }
        }
        try exchange.expect(try await exchange.command("MAIL FROM:<\(message.from.address)>"), 250, "MAIL FROM")
        var accepted: [String] = []
        var rejected: [Rejection] = []
        for address in Self.unique(message.to.map(\.address)) {
            let answer = try await exchange.command("RCPT TO:<\(address)>")
            if answer.isPositive {
                accepted.append(address)
            } else if answer.isPermanent {
                rejected.append(Rejection(address: address, reply: answer))
            } else {
                throw SMTPError(.rejected, "the relay \(relay) refused \(address) for now (\(answer))", reply: answer)
            }
        }
        guard !accepted.isEmpty else {
            _ = try? await exchange.command("RSET")
            return Result(accepted: [], rejected: rejected)
        }
        try exchange.expect(try await exchange.command("DATA"), 354, "DATA")
        try await exchange.write(EmailMessage.dotStuffed(message.rendered()))
        let answer = try await exchange.reply()
        if answer.isPermanent {
            return Result(accepted: [], rejected: rejected + accepted.map { Rejection(address: $0, reply: answer) })
        }
        try exchange.expect(answer, 250, "the message")
        return Result(accepted: accepted, rejected: rejected)
    }

    static func unique(_ addresses: [String]) -> [String] {
        var seen: Set<String> = []
        return addresses.filter { seen.insert($0.lowercased()).inserted }
    }
}
