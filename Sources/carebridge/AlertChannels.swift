import AlertDelivery
import ArgumentParser
import CareStore
import Foundation
import Logging
import MQTTClient

/// The alert outbox's channels to deliver (webhook and/or MQTT), shared by `alerts deliver` and `run`: each is
/// enabled in the store (from then on every alert change is queued for it) and gets a deliverer.
struct AlertChannels {
    var deliverers: [AlertDeliverer] = []
    var mqttSender: MQTTAlertSender?

    /// - Throws: `ValidationError` for a bad URL (naming `option`), ``CareStoreError`` when a channel cannot be
    ///   enabled.
    init(
        store: CareStore,
        webhook: String?,
        webhookOption: String = "--webhook",
        mqtt: String?,
        mqttOption: String = "--mqtt",
        broker: MQTTBrokerOptions,
        topic: String,
        prefix: String,
        zone: TimeZone,
        logger: Logger
    ) throws {
        if let webhook {
            let client: WebhookClient
            do {
                client = try WebhookClient(url: webhook)
            } catch {
                throw ValidationError("\(webhookOption): \(error)")
            }
            try store.enableAlertChannel(CareStore.webhookAlertChannel)
            let sender = WebhookAlertSender(client: client, zone: zone)
            deliverers.append(
                AlertDeliverer(store: store, channel: CareStore.webhookAlertChannel, logger: logger) {
                    try await sender.send($0)
                }
            )
        }
        if let mqtt {
            var configuration: MQTTSession.Configuration
            do {
                configuration = try MQTTSession.Configuration(url: mqtt, clientID: "carebridge-alerts-\(getpid())")
            } catch {
                throw ValidationError("\(mqttOption): \(error)")
            }
            if let password = try broker.password(url: mqtt) { configuration.setPassword(password) }
            if configuration.tls != nil {
                configuration.tls = try broker.tls(redactedURL: MQTTSession.Configuration.redacted(url: mqtt))
            }
            try store.enableAlertChannel(CareStore.mqttAlertChannel)
            let sender = MQTTAlertSender(
                store: store,
                configuration: configuration,
                topic: topic,
                prefix: prefix,
                zone: zone,
                logger: logger
            )
            mqttSender = sender
            deliverers.append(
                AlertDeliverer(store: store, channel: CareStore.mqttAlertChannel, logger: logger) {
                    try await sender.send($0)
                }
            )
        }
    }

    func stop() async {
        await mqttSender?.stop()
    }
}
