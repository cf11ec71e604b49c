public import CareStore
public import Foundation
public import Logging
public import MQTTBridge

/// One channel of the store's alert outbox (`webhook`, `mqtt`, `email`), delivered in order with retries by an
/// ``OutboxService``.
///
/// Notifications are queued by the store in the transaction that raises, withdraws or acknowledges an alert
/// (``CareStore/reconcileAlerts(_:taskIDs:from:to:now:)``); a notification is removed only after the receiver
/// confirmed it. A failed attempt is recorded with the error and retried after a back-off (1 s doubling up to
/// 5 min); the ones queued after it wait, so a receiver always sees an alert's changes in order. Delivery is at
/// least once: a receiver drops repeats by the alert `id` and `change`. What the sender's receipt says it reached
/// is recorded in the sharing audit in the transaction that removes the entry.
public struct AlertOutboxChannel: OutboxChannel {
    public let store: CareStore
    /// The store's channel name (``CareStore/webhookAlertChannel``, ``CareStore/mqttAlertChannel``).
    public let name: String
    public let sender: any AlertSender
    /// The back-off after the first failure; it doubles with every attempt up to ``maximumRetry``.
    public var initialRetry: Duration = .seconds(1)
    public var maximumRetry: Duration = .seconds(300)
    /// The wall clock the retry times are written in (tests tie it to their clock).
    public var now: @Sendable () -> Date = { Date() }
    let logger: Logger

    /// - Parameters:
    ///   - store: the store whose alert outbox is delivered.
    ///   - channel: the store's channel name.
    ///   - sender: the receiver.
    ///   - logger: deliveries (debug).
    public init(store: CareStore, channel: String, sender: any AlertSender, logger: Logger) {
        self.store = store
        self.name = channel
        self.sender = sender
        self.logger = logger
    }

    /// Alerts are queued by the rules' evaluation, which wakes the service itself.
    public func isQueued(by change: StoreChange) -> Bool { false }

    public func pendingCount() async -> Int { (try? await store.alertDeliveryCount(channel: name)) ?? -1 }

    /// Sends the notifications that are due, oldest first, until one fails or none is left.
    public func deliverDue() async -> OutboxPass {
        var delivered = 0
        while !Task.isCancelled {
            let batch: [AlertDelivery]
            do {
                batch = try await store.pendingAlertDeliveries(channel: name, limit: 50, now: now())
            } catch {
                return OutboxPass(delivered: delivered, failure: "the alert outbox cannot be read: \(error.message)")
            }
            if batch.isEmpty { break }
            for delivery in batch {
                do {
                    let receipt = try await sender.send(delivery)
                    try await store.completeAlertDelivery(
                        sequence: delivery.sequence,
                        reached: receipt.reached,
                        refused: receipt.refused.map { ($0.contactID, $0.recipient, $0.reason) },
                        at: now()
                    )
                    delivered += 1
                    logger.debug(
                        "alert delivered",
                        metadata: [
                            "alert.id": "\(delivery.alert.id)", "alert.change": "\(delivery.change.rawValue)",
                            "alert.reached": "\(receipt.reached.joined(separator: ","))",
                        ]
                    )
                    for refusal in receipt.refused {
                        logger.warning(
                            "alert refused for good by a recipient; not retried",
                            metadata: [
                                "alert.id": "\(delivery.alert.id)", "recipient": "\(refusal.recipient)",
                                "error": "\(refusal.reason)",
                            ]
                        )
                    }
                } catch {
                    let delay = retryDelay(attempts: delivery.attempts)
                    let message = "\(error)"
                    let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
                    try? await store.failAlertDelivery(
                        sequence: delivery.sequence,
                        error: message,
                        retryAt: now().addingTimeInterval(seconds)
                    )
                    return OutboxPass(delivered: delivered, failure: message, retryAfter: delay)
                }
            }
        }
        return OutboxPass(delivered: delivered)
    }

    /// `initialRetry` doubled per earlier attempt, at most `maximumRetry`.
    func retryDelay(attempts: Int) -> Duration {
        var delay = initialRetry
        for _ in 0..<min(attempts, 32) where delay < maximumRetry { delay *= 2 }
        return min(delay, maximumRetry)
    }
}
