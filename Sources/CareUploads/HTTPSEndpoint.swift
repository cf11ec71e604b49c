import AsyncHTTPClient
import Foundation
public import NIOCore
public import NIOHTTP1
import NIOSSL

/// One HTTP(S) receiver every upload posts to the same way (the hub, alert webhooks, Nightscout): the address
/// checked once, HTTPS with the system's trust roots or a CA file's, redirects never followed (the data would go
/// to a host nobody configured), one async-http-client per post, shut down after it.
///
/// Messages name the receiver as `host:port` only: a URL's path, query and credentials (where tokens live) stay
/// out of logs and errors. A URL's `user:password@` becomes an `Authorization: Basic` header (never the request
/// line); ``redacted(_:)`` is the form of a URL fit for a message.
public struct HTTPSEndpoint: Sendable {
    /// Where plain `http://` may go.
    public enum PlainHTTP: Sendable {
        /// Any host (a receiver on the local network the operator chose).
        case anyHost
        /// Only this machine (`localhost`, 127.0.0.0/8, `::1`): data leaving the box goes over TLS.
        case loopbackOnly
    }

    /// Why the address cannot be used or a post failed; never carries the URL's path, query or credentials.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// The HTTP status, nil when there was no answer.
        public var status: UInt?
        public var description: String
    }

    /// What the receiver answered.
    public struct Response: Sendable {
        public var status: UInt
        public var headers: HTTPHeaders
        public var body: ByteBuffer

        /// `Retry-After` in seconds (the delay form; an HTTP date is not read), nil when absent or unreadable.
        public var retryAfter: Duration? {
            headers.first(name: "Retry-After").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
                .map { .seconds(max($0, 0)) }
        }
    }

    /// The address as given, without its `user:password@`.
    public let url: String
    /// `Basic …` from the URL's `user:password@`, nil without one.
    let authorization: String?
    /// `host:port`, for messages.
    public let target: String
    /// Whether the address is `https://`.
    public var isSecure: Bool { tls != nil }
    let tls: TLSConfiguration?

    /// - Parameters:
    ///   - url: `http[s]://host[:port]/path`.
    ///   - caFile: with `https://`, the PEM file of the CA the receiver's certificate chains to (nil: the system's
    ///     trust store).
    ///   - plainHTTP: where `http://` may go.
    ///   - clientCertificate: with `https://`, PEM files of a certificate (chain) and its key the client shows when
    ///     the receiver asks for one.
    /// - Throws: ``Failure`` for another scheme, a URL without a host, a port outside 1…65535, `http://` to a host
    ///   `plainHTTP` does not allow, a CA file or client certificate with `http://`, or a CA file, certificate or
    ///   key that cannot be read (naming the file, never its content).
    public init(
        url: String,
        caFile: String? = nil,
        plainHTTP: PlainHTTP = .anyHost,
        clientCertificate: (certificate: String, key: String)? = nil
    ) throws(Failure) {
        guard var components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
        else {
            throw Failure(description: "not an http:// or https:// URL with a host")
        }
        let secure = scheme == "https"
        // A port past 65535 would wrap (99999 is 34463 to the socket): refused, naming the port only.
        if let port = components.port, !(1...65535).contains(port) {
            throw Failure(description: "port \(port) is out of range (1…65535)")
        }
        target = "\(host):\(components.port ?? (secure ? 443 : 80))"
        if components.user != nil || components.password != nil {
            let pair = "\(components.user ?? ""):\(components.password ?? "")"
            authorization = "Basic " + Data(pair.utf8).base64EncodedString()
            components.user = nil
            components.password = nil
            self.url = components.string ?? url
        } else {
            authorization = nil
            self.url = url
        }
        guard secure else {
            if caFile != nil || clientCertificate != nil {
                throw Failure(description: "a CA file or a client certificate needs an https:// URL")
            }
            if plainHTTP == .loopbackOnly, !Self.isLoopback(host) {
                throw Failure(
                    description: "http:// only to this machine (localhost, 127.0.0.0/8, ::1); use https:// for \(host)"
                )
            }
            tls = nil
            return
        }
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile {
            do {
                tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caFile))
            } catch {
                throw Failure(description: "cannot read the CA file \(caFile): \(error)")
            }
        }
        if let clientCertificate {
            do {
                tls.certificateChain = try NIOSSLCertificate.fromPEMFile(clientCertificate.certificate).map {
                    .certificate($0)
                }
            } catch {
                throw Failure(description: "cannot read the client certificate \(clientCertificate.certificate)")
            }
            do {
                tls.privateKey = .privateKey(try NIOSSLPrivateKey(file: clientCertificate.key, format: .pem))
            } catch {
                throw Failure(description: "cannot read the client key \(clientCertificate.key) (a PEM private key)")
            }
        }
        self.tls = tls
    }

    /// `url` fit for a message: its `user:password@` and query replaced by `***` (they are where tokens live), the
    /// fragment dropped; text that is no URL becomes `***` whole.
    public static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.scheme != nil else { return "***" }
        if components.user != nil || components.password != nil {
            components.percentEncodedUser = "***"
            components.percentEncodedPassword = nil
        }
        if components.query != nil { components.percentEncodedQuery = "***" }
        components.fragment = nil
        return components.string ?? "***"
    }

    /// Whether `host` is this machine (`localhost`, 127.0.0.0/8, `::1`).
    public static func isLoopback(_ host: String) -> Bool {
        if host.lowercased() == "localhost" { return true }
        if host == "::1" || host == "[::1]" { return true }
        let parts = host.split(separator: ".")
        return parts.count == 4 && parts.first == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// Posts `body` to the endpoint (or to `url`, an address under it) and reads the answer.
    /// - Parameters:
    ///   - headers: sent besides `User-Agent: carebridge` (and the body's `Content-Type`).
    ///   - timeout: the longest the post may take, connection included.
    ///   - answerLimit: the most of the answer read (a longer answer is a failure).
    /// - Returns: the answer, whatever its status.
    /// - Throws: ``Failure`` (no status) when there is no answer: `cannot post to host:port: <error>`.
    public func post(
        _ body: String,
        to url: String? = nil,
        contentType: String = "application/json",
        headers: [(String, String)] = [],
        timeout: Duration,
        answerLimit: Int = 1 << 20
    ) async throws(Failure) -> Response {
        try await send(
            .POST,
            body: (body, contentType),
            to: url,
            headers: headers,
            timeout: timeout,
            answerLimit: answerLimit
        )
    }

    /// Gets `url` (an address under the endpoint; the endpoint itself when nil) and reads the answer.
    /// - Returns: the answer, whatever its status.
    /// - Throws: ``Failure`` (no status) when there is no answer: `cannot get from host:port: <error>`.
    public func get(
        _ url: String? = nil,
        headers: [(String, String)] = [],
        timeout: Duration,
        answerLimit: Int = 1 << 20
    ) async throws(Failure) -> Response {
        try await send(.GET, body: nil, to: url, headers: headers, timeout: timeout, answerLimit: answerLimit)
    }

    private func send(
        _ method: HTTPMethod,
        body: (text: String, contentType: String)?,
        to url: String?,
        headers: [(String, String)],
        timeout: Duration,
        answerLimit: Int
    ) async throws(Failure) -> Response {
        var request = HTTPClientRequest(url: url ?? self.url)
        request.method = method
        if let body {
            request.headers.add(name: "Content-Type", value: body.contentType)
            request.body = .bytes(ByteBuffer(string: body.text))
        }
        request.headers.add(name: "User-Agent", value: "carebridge")
        if let authorization { request.headers.add(name: "Authorization", value: authorization) }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let client = HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup,
            configuration: HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow)
        )
        let response: Response
        do {
            let nanoseconds =
                timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
            let answer = try await client.execute(request, timeout: .nanoseconds(nanoseconds))
            response = Response(
                status: answer.status.code,
                headers: answer.headers,
                body: try await answer.body.collect(upTo: answerLimit)
            )
        } catch {
            try? await client.shutdown()
            throw Failure(description: "cannot \(method == .GET ? "get from" : "post to") \(target): \(error)")
        }
        try? await client.shutdown()
        return response
    }
}
