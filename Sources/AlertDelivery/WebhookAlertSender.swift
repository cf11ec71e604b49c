import AsyncHTTPClient
import BridgeFoundation
public import CareStore
public import Foundation
import GATTDecoding
import Insights
import NIOCore
import NIOHTTP1
import NIOSSL

/// Posts each alert notification to a webhook as JSON: `{"change": "raised"|"acknowledged"|"withdrawn",
/// "alert": {…}}` (the alert as `carebridge alerts --json` shows it), with an `Idempotency-Key` header. Any 2xx
/// answer confirms it.
///
/// `http://` or `https://` through async-http-client; over HTTPS the receiver's certificate must chain to the
/// given CA file (a private CA), else to the system's trust store, and name the host. Redirects are not followed
/// (the alert would go to a host nobody configured). Messages name the receiver as `host:port` only: the URL's
/// path, query and credentials (where tokens live) stay out of logs and errors.
public struct WebhookAlertSender: AlertSender {
    /// Why a webhook cannot be used or a post failed; never carries the URL's path, query or credentials.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// `host:port`, for messages.
    public let target: String
    public let zone: TimeZone
    public let timeout: Duration
    let url: String
    let tls: TLSConfiguration?

    /// - Parameters:
    ///   - url: `http[s]://host[:port]/path`.
    ///   - caFile: with `https://`, the PEM file of the CA the receiver's certificate chains to (nil: the system's
    ///     trust store).
    ///   - zone: the zone the alert's times are written in.
    ///   - timeout: the longest a post may take, connection included.
    /// - Throws: ``Failure`` for another scheme, a URL without a host, a port outside 1…65535, a CA file with
    ///   `http://`, or a CA file that cannot be read.
    public init(url: String, caFile: String? = nil, zone: TimeZone, timeout: Duration = .seconds(10)) throws(Failure) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
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
        self.url = url
        self.zone = zone
        self.timeout = timeout
        guard secure else {
            if caFile != nil { throw Failure(description: "a CA file needs an https:// URL") }
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
        self.tls = tls
    }

    /// The JSON body for one notification.
    public static func body(_ delivery: AlertDelivery, zone: TimeZone) -> String {
        JSONValue.object([
            "change": .string(delivery.change.rawValue),
            "alert": delivery.alert.json(in: zone),
        ]).serialized()
    }

    /// Posts the notification.
    /// - Returns: an empty receipt: a webhook is no contact's inbox.
    /// - Throws: ``Failure`` when it cannot be posted or the answer is not 2xx.
    public func send(_ delivery: AlertDelivery) async throws -> AlertSendReceipt {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "carebridge")
        request.headers.add(
            name: "Idempotency-Key",
            value: "carebridge-alert-\(delivery.alert.id)-\(delivery.sequence)"
        )
        request.body = .bytes(ByteBuffer(string: Self.body(delivery, zone: zone)))
        let client = HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup,
            configuration: HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow)
        )
        let status: UInt
        do {
            let response = try await client.execute(request, timeout: .nanoseconds(Int64(timeout.nanoseconds)))
            status = response.status.code
            // Read (and drop) the answer so that the connection can close cleanly.
            _ = try? await response.body.collect(upTo: 64 * 1024)
        } catch {
            try? await client.shutdown()
            throw Failure(description: "cannot post to \(target): \(error)")
        }
        try? await client.shutdown()
        guard (200..<300).contains(status) else { throw Failure(description: "\(target) answered HTTP \(status)") }
        return AlertSendReceipt()
    }
}

extension Duration {
    /// The duration in whole nanoseconds.
    fileprivate var nanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}
