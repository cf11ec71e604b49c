import BridgeFoundation
public import CareStore
public import Foundation
import GATTDecoding
import Insights

/// Posts each alert notification to a webhook as JSON: `{"change": "raised"|"acknowledged"|"withdrawn",
/// "alert": {…}}` (the alert as `carebridge alerts --json` shows it). Any 2xx answer confirms it.
public struct WebhookAlertSender: Sendable {
    public let client: WebhookClient
    public let zone: TimeZone

    public init(client: WebhookClient, zone: TimeZone) {
        self.client = client
        self.zone = zone
    }

    /// The JSON body for one notification.
    public static func body(_ delivery: AlertDelivery, zone: TimeZone) -> String {
        JSONValue.object([
            "change": .string(delivery.change.rawValue),
            "alert": delivery.alert.json(in: zone),
        ]).serialized()
    }

    /// Posts the notification.
    /// - Throws: ``WebhookClient/Failure`` when it cannot be posted or the answer is not 2xx.
    public func send(_ delivery: AlertDelivery) async throws {
        let status = try await client.post(
            Self.body(delivery, zone: zone),
            headers: [("Idempotency-Key", "carebridge-alert-\(delivery.alert.id)-\(delivery.sequence)")]
        )
        guard (200..<300).contains(status) else {
            throw WebhookClient.Failure(description: "\(client.host):\(client.port) answered HTTP \(status)")
        }
    }
}
