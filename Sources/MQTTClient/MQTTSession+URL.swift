import NIOCore

extension MQTTSession.Configuration {
    /// A configuration for a broker URL such as `mqtt://broker.local`, `mqtt://user:secret@10.0.0.2:1884`,
    /// `mqtt://[::1]:1883` or `mqtts://broker.local`; the port defaults to 1883, and to 8883 for `mqtts://`,
    /// which turns on ``TLS`` with the system's trust store and hostname verification (set ``tls`` to change them).
    ///
    /// - Throws: ``MQTTClientError`` with `.invalidURL` for another scheme, an empty host, or a port outside
    ///   1–65535.
    public init(url: String, clientID: String) throws(MQTTClientError) {
        let lowercased = url.lowercased()
        let secure = lowercased.hasPrefix("mqtts://")
        let scheme = secure ? "mqtts://" : "mqtt://"
        guard lowercased.hasPrefix(scheme) else {
            throw MQTTClientError(
                .invalidURL,
                "'\(Self.redacted(url: url))' does not start with mqtt:// or mqtts:// (TLS)"
            )
        }
        var rest = Substring(url.dropFirst(scheme.count))
        // A query or fragment (`?token=…`) is no part of a broker URL; it may hold a secret, so it is not shown.
        if rest.contains(where: { $0 == "?" || $0 == "#" }) {
            throw MQTTClientError(
                .invalidURL,
                "'\(Self.redacted(url: url))' has a query or fragment; a broker URL has none"
            )
        }
        if let slash = rest.firstIndex(of: "/") {
            guard rest[slash...].allSatisfy({ $0 == "/" }) else {
                throw MQTTClientError(.invalidURL, "'\(Self.redacted(url: url))' has a path; a broker URL has none")
            }
            rest = rest[..<slash]
        }
        var username: String?
        var password: ByteBuffer?
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = credentials.firstIndex(of: ":") {
                username = String(credentials[..<colon])
                password = ByteBuffer(string: String(credentials[credentials.index(after: colon)...]))
            } else {
                username = String(credentials)
            }
        }
        var host = rest
        var port = secure ? 8883 : 1883
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else {
                throw MQTTClientError(.invalidURL, "'\(Self.redacted(url: url))' has an unterminated IPv6 address")
            }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else {
                    throw MQTTClientError(.invalidURL, "'\(Self.redacted(url: url))': junk after the address")
                }
                port = try Self.port(after.dropFirst(), url: url)
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            port = try Self.port(rest[rest.index(after: colon)...], url: url)
        }
        guard !host.isEmpty else { throw MQTTClientError(.invalidURL, "'\(Self.redacted(url: url))' has no host") }
        self.init(
            host: String(host),
            port: port,
            clientID: clientID,
            username: username,
            password: password,
            tls: secure ? TLS() : nil
        )
    }

    /// `url` with the password, if any, and any query or fragment replaced by `***` (`mqtt://bridge:***@host`,
    /// `mqtt://host?***`): the form every message and log line shows, since a password or a token must not reach
    /// the journal, a terminal or a bug report.
    public static func redacted(url: String) -> String {
        let masked = redactingPassword(url)
        guard let mark = masked.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return masked }
        return String(masked[...mark]) + "***"
    }

    /// `url` with the password, if any, replaced by `***`.
    private static func redactingPassword(_ url: String) -> String {
        let characters = Array(url)
        var separator: Int?
        for index in 0..<max(characters.count - 2, 0)
        where characters[index] == ":" && characters[index + 1] == "/" && characters[index + 2] == "/" {
            separator = index
            break
        }
        guard let separator else { return url }
        let authorityStart = url.index(url.startIndex, offsetBy: separator + 3)
        let authorityEnd = url[authorityStart...].firstIndex(of: "/") ?? url.endIndex
        let authority = url[authorityStart..<authorityEnd]
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else {
            return url
        }
        return String(url[..<url.index(after: colon)]) + "***" + String(url[at...])
    }

    /// Whether `url` carries a password (`mqtt://user:password@host`).
    public static func hasPassword(url: String) -> Bool { redactingPassword(url) != url }

    private static func port(_ text: Substring, url: String) throws(MQTTClientError) -> Int {
        guard let port = Int(text), (1...65_535).contains(port) else {
            throw MQTTClientError(
                .invalidURL,
                "'\(Self.redacted(url: url))' has port '\(text)'; expected 1–65535"
            )
        }
        return port
    }
}
