import AlertDelivery
import ArgumentParser
import CareStore
import Foundation
import Logging
import MQTTBridge
import ServiceLifecycle
import UnixSignals

struct AlertsDeliver: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deliver",
        abstract: "Send alert notifications to an HTTP webhook, MQTT (Home Assistant) and/or the contacts by e-mail.",
        discussion: """
            The first run with --webhook, --mqtt or --smtp turns the channel on: from then on every alert raised, \
            acknowledged or withdrawn (by any command) is queued for it in the same transaction, and the alerts \
            open at that moment are queued as raised. Notifications go out oldest first and are removed only \
            when the receiver confirmed them (HTTP 2xx; MQTT PUBACK; the relay's 250); a failed one is retried with back-off \
            (1 s doubling up to 5 min) and the later ones wait, so changes arrive in order. Delivery is at least \
            once: receivers drop repeats by alert id and change.

            Webhook: POST of {"change": "raised"|"acknowledged"|"withdrawn", "alert": {…}} (the alert as \
            `alerts --json` shows it) with Content-Type application/json and an Idempotency-Key header, over \
            http:// or https:// (the receiver's certificate must chain to --webhook-ca-file, else to the system's \
            trust store, and name the host). \
            MQTT: per rule a Home Assistant binary sensor (device class problem, on while the rule has an open \
            alert) at <prefix>/binary_sensor/carebridge_alert_<task>_<rule>/config, its state and attributes \
            under <topic>/alert/<task>_<rule>/, and an event message per change at …/event (ids other than \
            lowercase letters, digits and '-' get a hash of the pair appended, so no two rules share a sensor).

            E-mail: one plain-text message per change to the contacts of the alert's patient who receive \
            alerts ("receives": ["alerts"] with "emails" in the plan file) of its severity ("alertSeverity": \
            "warning" or "critical" sends that contact only those and worse; default every alert), through the \
            --smtp relay with STARTTLS (its certificate checked against --smtp-ca-file, else the system's trust \
            store; --smtp-insecure only for a relay on this machine) and AUTH PLAIN with the user name and \
            password from --smtp-credentials-file (two lines; or the systemd credential smtp-credentials). A \
            refused connection, a timeout or a 4xx answer is retried; a recipient the relay refuses with 5xx is \
            recorded as failed (listed here) and not retried. `carebridge shared` lists who was sent which alert \
            by which channel: a webhook or a broker is nobody's inbox and is not listed there.

            Without --follow: delivers what is pending, waiting up to --wait seconds for receivers, and exits \
            75 if anything is still pending. With --follow: keeps running, re-evaluating the rules every \
            --interval seconds (adherence deadlines pass with time) and delivering as alerts change.

            Examples:
              carebridge alerts deliver --webhook http://127.0.0.1:8080/carebridge
              carebridge alerts deliver --webhook-url-file /etc/cb/webhook-url --follow
              carebridge alerts deliver --mqtt mqtt://homeassistant.local --follow
              carebridge alerts deliver --smtp smtp://mail.example.org:587 \\
                --smtp-from "CareBridge Ward 3 <alerts@ward3.example.org>" \\
                --smtp-credentials-file /etc/carebridge/smtp-credentials --follow

            \(StoreExit.help) 75: notifications are still pending (receiver unreachable).
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Webhook URL (http[s]://host[:port]/path), for a URL that holds no secret.",
            discussion:
                "A URL with a token or user:password@ goes in --webhook-url-file (the command line shows in `ps`).",
            valueName: "url"
        )
    )
    var webhook: String?

    @Option(
        name: .customLong("webhook-url-file"),
        help: ArgumentHelp(
            "A file holding the webhook URL (one line; user:password@ in it is sent as HTTP Basic authentication).",
            discussion: "Else the systemd credential `webhook-url` (LoadCredential=webhook-url:FILE).",
            valueName: "file"
        )
    )
    var webhookURLFile: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With an https:// --webhook: the PEM file of the CA that signed the receiver's certificate.",
            discussion: "Without it the system's trust store is used.",
            valueName: "file"
        )
    )
    var webhookCAFile: String?

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

    /// The relay, sender, credentials file and TLS for e-mail.
    @OptionGroup var smtp: SMTPOptions

    @Option(name: .long, help: "Seconds to wait for receivers before giving up (without --follow; 0–86400).")
    var wait: Double = 30

    @Flag(name: .long, help: "Keep running: re-evaluate and deliver until stopped.")
    var follow = false

    @Option(name: .long, help: "Seconds between re-evaluations with --follow (1–86400).")
    var interval: Double = 60

    /// The webhook's URL from --webhook, --webhook-url-file or the systemd credential.
    var alertWebhook: AlertWebhook {
        AlertWebhook(
            argument: webhook,
            file: webhookURLFile,
            caFile: webhookCAFile,
            options: ("--webhook", "--webhook-url-file", "--webhook-ca-file")
        )
    }

    func validate() throws {
        let webhookURL = try alertWebhook.url()
        if webhookURL == nil, mqtt == nil, smtp.url == nil {
            throw ValidationError("give --webhook URL (or --webhook-url-file FILE), --mqtt URL and/or --smtp URL")
        }
        try smtp.check()
        try NumericOption.check(wait, "--wait", in: 0...NumericOption.day)
        try NumericOption.check(interval, "--interval", in: 1...NumericOption.day)
        try broker.check(url: mqtt)
    }

    func run() async throws {
        let webhookURL = try alertWebhook.url()
        alertWebhook.warnIfExposed()
        let zone = try global.resolvedTimeZone()
        let store = try await storeOptions.open(zone: zone, patients: .any)
        let logger = CLILogging.logger
        let discovery = HomeAssistantDiscovery(discoveryPrefix: prefix, topicPrefix: topic)
        let connection = try mqtt.map {
            try broker.connection(
                url: $0,
                option: "--mqtt",
                publisher: .alerts,
                discovery: discovery,
                clientID: "carebridge-alerts-\(getpid())",
                logger: logger
            )
        }
        let email = try smtp.sender(store: store, zone: zone)
        let started = Date()
        let channels: AlertChannels
        do {
            channels = try await AlertChannels(
                store: store,
                webhook: webhookURL,
                webhookCAFile: webhookCAFile,
                connection: connection,
                email: email,
                discovery: discovery,
                zone: zone,
                drainTimeout: .milliseconds(Int64((wait * 1000).rounded())),
                logger: logger
            )
        } catch let error as CareStoreError {
            throw StoreExit.fail(error)
        }
        if follow {
            // Evaluation and delivery as in the bridge, until SIGINT or SIGTERM.
            let evaluation = AlertService(
                store: store,
                outboxes: channels.outboxes,
                evaluationInterval: .milliseconds(Int64((interval * 1000).rounded())),
                logger: logger
            )
            let services: [any Service] = (connection.map { [$0] } ?? []) + channels.outboxes + [evaluation]
            var configuration = ServiceGroupConfiguration(services: services, logger: logger)
            configuration.gracefulShutdownSignals = [.sigterm, .sigint]
            try await ServiceGroup(configuration: configuration).run()
            return
        }
        await connection?.start()
        var pending = 0
        for outbox in channels.outboxes {
            let left = await outbox.drain(timeout: outbox.drainTimeout)
            await outbox.stop()
            if left != 0 {
                Output.error(
                    "\(left) \(outbox.channel.name) notification(s) still pending; they are kept for the next run"
                )
            }
            pending += max(left, 0)
        }
        // The alert publisher's availability turns `offline`: nothing keeps the alert sensors up to date now.
        await connection?.stop()
        let failures = (try? await store.alertDeliveryFailures()) ?? []
        for failure in failures where failure.failedAt >= started.addingTimeInterval(-1) {
            Output.error(
                "alert \(failure.alertID) \(failure.change.rawValue): \(failure.channel) to \(failure.recipient) "
                    + "refused for good (not retried): \(failure.error)"
            )
        }
        print("alert notifications pending: \(pending)")
        if pending > 0 { throw ExitCode(75) }
    }
}
