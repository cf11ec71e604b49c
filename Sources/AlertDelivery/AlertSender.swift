public import CareStore

/// Sends one alert notification to a receiver (a webhook, Home Assistant over MQTT): what an
/// ``AlertOutboxChannel`` delivers through.
public protocol AlertSender: Sendable {
    /// Sends `delivery`; returns once the receiver confirmed it (HTTP 2xx, MQTT PUBACK).
    /// - Throws: why it was not confirmed, without credentials (the entry stays queued and is retried).
    func send(_ delivery: AlertDelivery) async throws
}
