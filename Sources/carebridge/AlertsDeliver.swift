import AlertDelivery
import ArgumentParser
import CareStore
import Foundation
import Insights
import MQTTClient

struct AlertsDeliver: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deliver",
        abstract: "Send alert notifications to an HTTP webhook and/or MQTT (Home Assistant).",
        discussion: """
            The first run with --webhook or --mqtt turns the channel on: from then on every alert raised, \
            acknowledged or withdrawn (by any command) is queued for it in the same transaction, and the alerts \
            open at that moment are queued as raised. Notifications go out oldest first and are removed only \
            when the receiver confirmed them (HTTP 2xx; MQTT PUBACK); a failed one is retried with back-off \
            (1 s doubling up to 5 min) and the later ones wait, so changes arrive in order. Delivery is at least \
            once: receivers drop repeats by alert id and change.

            Webhook: POST of {"change": "raised"|"acknowledged"|"withdrawn", "alert": {…}} (the alert as \
            `alerts --json` shows it) with Content-Type application/json and an Idempotency-Key header. \
            MQTT: per rule a Home Assistant binary sensor (device class problem, on while the rule has an open \
            alert) at <prefix>/binary_sensor/carebridge_alert_<task>_<rule>/config, its state and attributes \
            under <topic>/alert/<task>_<rule>/, and an event message per change at …/event.

            Without --follow: delivers what is pending, waiting up to --wait seconds for receivers, and exits \
            75 if anything is still pending. With --follow: keeps running, re-evaluating the rules every \
            --interval seconds (adherence deadlines pass with time) and delivering as alerts change.

            Examples:
              carebridge alerts deliver --webhook http://127.0.0.1:8080/carebridge
              carebridge alerts deliver --mqtt mqtt://homeassistant.local --follow

            \(StoreExit.help) 75: notifications are still pending (receiver unreachable).
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: "Webhook URL (http://host[:port]/path).")
    var webhook: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "MQTT broker URL (mqtt://[user@]host[:port], or mqtts://… for TLS).",
            discussion: """
                The password comes from --mqtt-password-file, else $CAREBRIDGE_MQTT_PASSWORD, else the systemd \
                credential `mqtt-password`, as for `run --mqtt`; mqtts:// checks the broker's certificate against \
                --mqtt-ca-file (else the system's trust store) and its name.
                """,
            valueName: "url"
        )
    )
    var mqtt: String?

    /// Password, TLS files and hostname verification for the broker.
    @OptionGroup var broker: MQTTBrokerOptions

    @Option(name: .customLong("mqtt-topic"), help: "First topic level.")
    var topic = "carebridge"

    @Option(name: .customLong("mqtt-prefix"), help: "Home Assistant discovery prefix.")
    var prefix = "homeassistant"

    @Option(name: .long, help: "Seconds to wait for receivers before giving up (without --follow).")
    var wait: Double = 30

    @Flag(name: .long, help: "Keep running: re-evaluate and deliver until stopped.")
    var follow = false

    @Option(name: .long, help: "Seconds between re-evaluations with --follow.")
    var interval: Double = 60

    func validate() throws {
        if webhook == nil, mqtt == nil { throw ValidationError("give --webhook URL and/or --mqtt URL") }
        if wait < 0 || interval <= 0 { throw ValidationError("--wait must be ≥ 0 and --interval > 0") }
        try broker.check(url: mqtt)
    }

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let store = try storeOptions.open(zone: zone, patients: .any)
        let channels: AlertChannels
        do {
            channels = try AlertChannels(
                store: store,
                webhook: webhook,
                mqtt: mqtt,
                broker: broker,
                topic: topic,
                prefix: prefix,
                zone: zone,
                logger: CLILogging.logger
            )
        } catch let error as CareStoreError {
            throw StoreExit.fail(error)
        }
        let deliverers = channels.deliverers
        let mqttSender = channels.mqttSender
        defer { if let mqttSender { Task { await mqttSender.stop() } } }
        if follow {
            var lastEvaluation = Date.distantPast
            while !Task.isCancelled {
                if Date().timeIntervalSince(lastEvaluation) >= interval {
                    await AlertReport.evaluate(store, from: Date().addingTimeInterval(-2 * 86_400))
                    lastEvaluation = Date()
                }
                for deliverer in deliverers { _ = await deliverer.deliverDue() }
                try await Task.sleep(for: .milliseconds(500))
            }
            return
        }
        var pending = 0
        for deliverer in deliverers {
            let left = await deliverer.drain(timeout: .milliseconds(Int64(wait * 1000)))
            if left > 0 {
                Output.error(
                    "\(left) \(deliverer.channel) notification(s) still pending; they are kept for the next run"
                )
            }
            pending += max(left, 0)
        }
        if let mqttSender { await mqttSender.stop() }
        print("alert notifications pending: \(pending)")
        if pending > 0 { throw ExitCode(75) }
    }
}
