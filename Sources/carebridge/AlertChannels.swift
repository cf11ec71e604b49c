import AlertDelivery
import ArgumentParser
import CareStore
import Foundation
import Logging
import MQTTBridge

/// The alert outbox's channels to deliver (webhook, MQTT, e-mail), shared by `alerts deliver` and `run`: each is
/// enabled in the store (from then on every alert change is queued for it) and gets an outbox service. MQTT goes
/// through the process's one broker connection.
struct AlertChannels {
    var outboxes: [OutboxService<AlertOutboxChannel>] = []

    /// - Parameters:
    ///   - webhook: the webhook URL, if any; `webhookCAFile` the PEM CA its HTTPS certificate chains to.
    ///   - connection: the process's broker connection, if alerts go to MQTT too.
    ///   - email: the e-mail sender, if alerts are mailed to the patients' contacts.
    ///   - drainTimeout: how long each channel may take to deliver at shutdown.
    /// - Throws: `ValidationError` for a bad URL or CA file (naming `webhookOption`), ``CareStoreError`` when a
    ///   channel cannot be enabled.
    init(
        store: CareStore,
        webhook: String?,
        webhookCAFile: String?,
        webhookOption: String = "--webhook",
        connection: BrokerConnection?,
        email: EmailAlertSender? = nil,
        discovery: HomeAssistantDiscovery,
        zone: TimeZone,
        drainTimeout: Duration,
        logger: Logger
    ) async throws {
        func outbox(_ channel: String, _ sender: any AlertSender) -> OutboxService<AlertOutboxChannel> {
            OutboxService(
                channel: AlertOutboxChannel(store: store, channel: channel, sender: sender, logger: logger),
                changes: nil,
                drainTimeout: drainTimeout,
                logger: logger
            )
        }
        if let webhook {
            let sender = try Self.webhookSender(url: webhook, caFile: webhookCAFile, option: webhookOption, zone: zone)
            try await store.enableAlertChannel(CareStore.webhookAlertChannel)
            outboxes.append(outbox(CareStore.webhookAlertChannel, sender))
        }
        if let connection {
            try await store.enableAlertChannel(CareStore.mqttAlertChannel)
            let sender = MQTTAlertSender(store: store, connection: connection, discovery: discovery, zone: zone)
            outboxes.append(outbox(CareStore.mqttAlertChannel, sender))
        }
        if let email {
            try await store.enableAlertChannel(CareStore.emailAlertChannel)
            outboxes.append(outbox(CareStore.emailAlertChannel, email))
        }
    }

    /// The webhook's sender, its URL and CA file checked.
    /// - Throws: `ValidationError` naming `option` (never showing the URL, whose path or query may hold a token).
    static func webhookSender(
        url: String,
        caFile: String?,
        option: String,
        zone: TimeZone
    ) throws -> WebhookAlertSender {
        do {
            return try WebhookAlertSender(url: url, caFile: caFile, zone: zone)
        } catch {
            throw ValidationError("\(option): \(error)")
        }
    }
}
