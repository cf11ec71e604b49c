public import CareStore
public import Foundation
public import Logging

/// Delivers one channel of the store's alert outbox, in order, with retries.
///
/// Notifications are queued by the store in the transaction that raises, withdraws or acknowledges an alert
/// (``CareStore/reconcileAlerts(_:taskIDs:from:to:now:)``); a notification is removed only after the receiver
/// confirmed it. A failed attempt is recorded with the error and retried after a back-off (1 s doubling up to
/// 5 min); the ones queued after it wait, so a receiver always sees an alert's changes in order. Delivery is at
/// least once: a receiver drops repeats by the alert `id` and `change`.
public struct AlertDeliverer: Sendable {
    public let store: CareStore
    public let channel: String
    public let send: @Sendable (AlertDelivery) async throws -> Void
    public var initialRetry: TimeInterval = 1
    public var maximumRetry: TimeInterval = 300
    let logger: Logger

    public init(
        store: CareStore,
        channel: String,
        logger: Logger,
        send: @escaping @Sendable (AlertDelivery) async throws -> Void
    ) {
        self.store = store
        self.channel = channel
        self.logger = logger
        self.send = send
    }

    /// Sends the notifications that are due, oldest first, until one fails or none is left.
    /// - Returns: how many were delivered, and the failure that stopped the pass.
    public func deliverDue(now: Date = Date()) async -> (delivered: Int, failure: String?) {
        var delivered = 0
        while true {
            let batch: [AlertDelivery]
            do {
                batch = try await store.pendingAlertDeliveries(channel: channel, limit: 50, now: Date())
            } catch {
                return (delivered, "the alert outbox cannot be read: \(error.message)")
            }
            if batch.isEmpty { return (delivered, nil) }
            for delivery in batch {
                do {
                    try await send(delivery)
                    try await store.completeAlertDelivery(sequence: delivery.sequence)
                    delivered += 1
                    logger.debug(
                        "alert delivered",
                        metadata: ["alert.id": "\(delivery.alert.id)", "alert.change": "\(delivery.change.rawValue)"]
                    )
                } catch {
                    let delay = min(initialRetry * pow(2, Double(delivery.attempts)), maximumRetry)
                    let message = "\(error)"
                    try? await store.failAlertDelivery(
                        sequence: delivery.sequence,
                        error: message,
                        retryAt: Date().addingTimeInterval(delay)
                    )
                    logger.warning(
                        "alert delivery failed; retrying",
                        metadata: [
                            "alert.channel": "\(channel)", "alert.id": "\(delivery.alert.id)", "error": "\(message)",
                            "retry.seconds": "\(delay)",
                        ]
                    )
                    return (delivered, message)
                }
            }
        }
    }

    /// Delivers until the channel is empty or `timeout` has passed, waiting for retries in between.
    /// - Returns: how many notifications are still pending.
    public func drain(timeout: Duration) async -> Int {
        let deadline = ContinuousClock.now + timeout
        while true {
            _ = await deliverDue()
            let pending = (try? await store.alertDeliveryCount(channel: channel)) ?? -1
            if pending == 0 || ContinuousClock.now >= deadline || Task.isCancelled { return pending }
            try? await Task.sleep(for: .milliseconds(200))
        }
    }
}
