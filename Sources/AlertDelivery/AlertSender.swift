public import CareStore

/// Sends one alert notification to a receiver (a webhook, Home Assistant over MQTT, the patient's contacts by
/// e-mail): what an ``AlertOutboxChannel`` delivers through.
public protocol AlertSender: Sendable {
    /// Sends `delivery`; returns once the receiver confirmed it (HTTP 2xx, MQTT PUBACK, the relay's 250).
    /// - Returns: which contacts it reached and which recipients refused it for good (the sharing audit records
    ///   exactly those); empty for a receiver that is not a person.
    /// - Throws: why it was not confirmed, without credentials (the entry stays queued and is retried).
    func send(_ delivery: AlertDelivery) async throws -> AlertSendReceipt
}
