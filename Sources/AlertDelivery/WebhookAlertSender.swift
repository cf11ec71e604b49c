import BridgeFoundation
public import CareStore
import CareUploads
public import Foundation
import GATTDecoding
import Insights

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
    public var target: String { endpoint.target }
    public let zone: TimeZone
    public let timeout: Duration
    let endpoint: HTTPSEndpoint

    /// - Parameters:
    ///   - url: `http[s]://host[:port]/path`.
    ///   - caFile: with `https://`, the PEM file of the CA the receiver's certificate chains to (nil: the system's
    ///     trust store).
    ///   - zone: the zone the alert's times are written in.
    ///   - timeout: the longest a post may take, connection included.
    /// - Throws: ``Failure`` for another scheme, a URL without a host, a port outside 1…65535, a CA file with
    ///   `http://`, or a CA file that cannot be read.
    public init(url: String, caFile: String? = nil, zone: TimeZone, timeout: Duration = .seconds(10)) throws(Failure) {
        do {
            endpoint = try HTTPSEndpoint(url: url, caFile: caFile)
        } catch {
            throw Failure(description: error.description)
        }
        self.zone = zone
        self.timeout = timeout
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
        let response: HTTPSEndpoint.Response
        do {
            response = try await endpoint.post(
                Self.body(delivery, zone: zone),
                headers: [("Idempotency-Key", "carebridge-alert-\(delivery.alert.id)-\(delivery.sequence)")],
                timeout: timeout,
                answerLimit: 64 * 1024
            )
        } catch {
            throw Failure(description: error.description)
        }
        guard (200..<300).contains(response.status) else {
            throw Failure(description: "\(target) answered HTTP \(response.status)")
        }
        return AlertSendReceipt()
    }
}
