public import Foundation

/// How the care app runs: where it listens, how long sessions last, how often it looks for changes.
public struct WebConfiguration: Sendable {
    /// `127.0.0.1` or `0.0.0.0`, or a host name.
    public var host: String
    public var port: Int
    /// PEM certificate chain and key for HTTPS; both or neither.
    public var tls: (certificate: String, key: String)?
    /// PEM certificates of the CA whose client certificates the server asks for and checks (the hub's
    /// `--client-ca`): a client that shows one must show a valid one; one that shows none is let through to
    /// authenticate otherwise. Needs ``tls``.
    public var clientCertificateAuthority: String?
    /// A session ends after this long without a request…
    public var idleTimeout: TimeInterval
    /// …and after this long in any case.
    public var sessionLimit: TimeInterval
    /// bcrypt's cost (2^cost rounds); 12 by default, lower only in tests.
    public var passwordCost: UInt8
    /// How often the store is checked for changes made by other processes (live updates).
    public var changePollInterval: Duration

    public init(
        host: String = "127.0.0.1",
        port: Int = 8480,
        tls: (certificate: String, key: String)? = nil,
        idleTimeout: TimeInterval = 30 * 60,
        sessionLimit: TimeInterval = 12 * 3600,
        passwordCost: UInt8 = 12,
        changePollInterval: Duration = .milliseconds(250)
    ) {
        self.host = host
        self.port = port
        self.tls = tls
        self.idleTimeout = idleTimeout
        self.sessionLimit = sessionLimit
        self.passwordCost = passwordCost
        self.changePollInterval = changePollInterval
    }

    /// Cookies get `Secure` when the app is served over TLS.
    public var isSecure: Bool { tls != nil }

    /// `ADDR:PORT`, `:PORT` or `[v6]:PORT` as `--listen` takes it.
    public static func parseListen(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host.isEmpty ? "0.0.0.0" : host, port)
    }
}
