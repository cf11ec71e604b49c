import AlertDelivery
import ArgumentParser
import BlueZTransport
import BridgeCore
import BridgeFoundation
import BridgeRuntime
import CareHub
import CarePlan
import CareStore
import CareWeb
import DeviceProfiles
import Foundation
import Logging
import MQTTBridge
import SampleIngest
import ServiceLifecycle
import SessionReplay
import Synchronization

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the bridge: live devices through BlueZ into the store, completing care-plan events.",
        discussion: """
            Discovers LE devices, connects to the ones a Devices/ profile claims (one connection attempt at a \
            time), subscribes to their measurements, and ingests every sample into the store, which completes \
            the matching events of the care plan as they arrive. Broadcast scales are read from their \
            advertisements. Log lines are structured (swift-log) on standard error; CAREBRIDGE_LOG_LEVEL \
            (trace, debug, info, notice, warning, error) changes the level (default info).

            SIGINT or SIGTERM stops gracefully: notifications are stopped, devices disconnected, samples \
            flushed, exit 0. \(ForcedStop.help) Under systemd (Type=notify) READY=1 is sent once the adapter is discovering and \
            WATCHDOG=1 while the loop makes progress. bluetoothd restarts and adapter unplugging pause the \
            bridge until they come back; a scanner that stays silent is restarted, then the adapter power-cycled, \
            then the bridge exits with 75 so the service manager restarts it.

            Examples:
              carebridge run --store /var/lib/carebridge/store.sqlite --plan \\
                  Recordings/care-plan.json
              carebridge run --adapter hci1 --record /var/lib/carebridge/recordings
              carebridge run --mqtt mqtt://homeassistant.local --mqtt-prefix \\
                  homeassistant

            With --mqtt every new sample is queued in the store's outbox in the transaction that stores it and \
            published (QoS 1) with Home Assistant discovery; on stop the bridge waits up to --mqtt-wait seconds \
            for the outbox to drain, and what is left goes out with the next run (see `carebridge outbox`).

            When the care plan has alert rules they are evaluated in the bridge as samples arrive and every \
            minute; raised alerts are logged, and delivered to the --mqtt broker (Home Assistant binary sensors), \
            to --alert-webhook and, with --smtp, by e-mail to the contacts who receive them (see `carebridge \
            alerts deliver`), e.g.:
              carebridge run --smtp smtp://mail.example.org:587 --smtp-from alerts@ward3.example.org \\
                  --smtp-credentials-file /etc/carebridge/smtp-credentials

            \(BlueZExit.help)
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var bluez: BlueZOptions
    @OptionGroup var global: GlobalOptions
    @OptionGroup var bindKeyOptions: BindKeysOptions
    @OptionGroup var mqtt: MQTTOptions

    @Option(name: .long, help: ArgumentHelp("A care plan to apply before starting.", valueName: "file"))
    var plan: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Also serve the care app on this address (as `carebridge serve --listen`).",
            valueName: "addr:port"
        )
    )
    var http: String?

    @OptionGroup var web: WebOptions

    @Option(
        name: .long,
        help: ArgumentHelp("Also write the session as a recording into this directory.", valueName: "dir")
    )
    var record: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Send alert notifications to this webhook (http[s]://host[:port]/path) as they change.",
            discussion: """
                Only when the care plan has alert rules; see `carebridge alerts deliver`. A URL with a token or \
                user:password@ goes in --alert-webhook-url-file (the command line shows in `ps`).
                """,
            valueName: "url"
        )
    )
    var alertWebhook: String?

    @Option(
        name: .customLong("alert-webhook-url-file"),
        help: ArgumentHelp(
            "A file holding the --alert-webhook URL (one line; user:password@ is sent as HTTP Basic authentication).",
            discussion: "Else the systemd credential `webhook-url` (`systemd-unit --webhook-credential FILE`).",
            valueName: "file"
        )
    )
    var alertWebhookURLFile: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With an https:// --alert-webhook: the PEM file of the CA that signed the receiver's certificate.",
            discussion: "Without it the system's trust store is used.",
            valueName: "file"
        )
    )
    var alertWebhookCAFile: String?

    /// E-mail of alerts to the contacts (relay, sender, credentials file, TLS).
    @OptionGroup var smtp: SMTPOptions

    @Option(name: .long, help: ArgumentHelp("Passkey for devices whose profile requires bonding.", valueName: "digits"))
    var passkey: UInt32?

    @Flag(name: .long, help: "Write Current Time to devices whose profile asks for it.")
    var setDeviceClock = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Trust device clocks up to this far from the receive time (seconds, default 3600).",
            valueName: "seconds"
        )
    )
    var clockSkewTolerance: Double = 3600

    @Option(
        name: .long,
        help: ArgumentHelp("Stop after this many seconds (default: run until stopped).", valueName: "seconds")
    )
    var duration: Double?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Restart discovery after this long without any advertisement (seconds).",
            valueName: "seconds"
        )
    )
    var scannerWatchdog: Double = 90

    @OptionGroup var hub: ReceiverOptions<Sync>

    @Option(
        name: .customLong("hub-client-cert"),
        help: ArgumentHelp("The bridge's client certificate for --hub, instead of a token.", valueName: "file")
    )
    var hubClientCertificate: String?

    @Option(
        name: .customLong("hub-client-key"),
        help: ArgumentHelp("The key of --hub-client-cert.", valueName: "file")
    )
    var hubClientKey: String?

    @OptionGroup var nightscout: ReceiverOptions<Nightscout>

    @Option(
        name: .customLong("nightscout-patient"),
        help: ArgumentHelp("Send only this patient's readings to --nightscout.", valueName: "id")
    )
    var nightscoutPatient: String?

    @OptionGroup var fhir: ReceiverOptions<FHIR>
    @OptionGroup var fhirSmart: SMARTOptions<FHIR>

    static let fhirCredentialOptions = FHIR.CredentialOptions(
        server: "--fhir-server",
        tokenFile: "--fhir-token-file",
        smart: FHIR.self
    )

    /// The bridge's credential for --hub: its token file, or its client certificate and key.
    func hubCredential() throws -> HubClient.Credential {
        try Sync.credential(
            tokenFile: hub.secretFile,
            certificate: hubClientCertificate,
            key: hubClientKey,
            options: ("--hub-token-file", "--hub-client-cert", "--hub-client-key")
        )
    }

    func validate() throws {
        if fhir.url == nil, fhir.secretFile != nil || fhir.caFile != nil || fhirSmart.isGiven {
            throw ValidationError("--fhir-token-file, --fhir-ca-file and --fhir-smart-… need --fhir-server")
        }
        if hub.url != nil {
            _ = try hubCredential()
        } else if hub.secretFile != nil || hubClientCertificate != nil || hubClientKey != nil {
            throw ValidationError("--hub-token-file, --hub-client-cert and --hub-client-key need --hub")
        }
        if (nightscout.url == nil) != (nightscout.secretFile == nil) {
            throw ValidationError("--nightscout and --nightscout-secret-file go together")
        }
        if nightscout.url == nil, nightscout.caFile != nil || nightscoutPatient != nil {
            throw ValidationError("--nightscout-ca-file and --nightscout-patient need --nightscout")
        }
        if hub.caFile != nil, hub.url == nil { throw ValidationError("--hub-ca-file needs --hub") }
        if let passkey { try NumericOption.check(Int(passkey), "--passkey", in: 0...999_999) }
        _ = try webhook.url()
        try smtp.check()
        if let duration { try NumericOption.checkPositive(duration, "--duration", atMost: NumericOption.tenYears) }
        try NumericOption.check(scannerWatchdog, "--scanner-watchdog", in: 1...NumericOption.day)
        // Before the store, the plan and the adapter: a recording that cannot be written fails now, not later.
        if let record, let problem = RecordingFile.problem(directory: record) {
            throw ValidationError("--record \(record): \(problem)")
        }
        // Compared with time differences only; the bound is past any span of supported dates (1900–9999).
        try NumericOption.check(clockSkewTolerance, "--clock-skew-tolerance", in: 0...1e12)
    }

    /// The alert webhook's URL from --alert-webhook, --alert-webhook-url-file or the systemd credential.
    var webhook: AlertWebhook {
        AlertWebhook(
            argument: alertWebhook,
            file: alertWebhookURLFile,
            caFile: alertWebhookCAFile,
            options: ("--alert-webhook", "--alert-webhook-url-file", "--alert-webhook-ca-file")
        )
    }

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let webhookURL = try webhook.url()
        webhook.warnIfExposed()
        var base = Logger(label: "carebridge", factory: { TerminalText.logHandler(label: $0) })
        base.logLevel =
            ProcessInfo.processInfo.environment["CAREBRIDGE_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        let logger = base
        let catalog = bluez.catalog()

        let webConfiguration = try http.map { try web.configuration(listen: $0, option: "--http") }
        let document = try plan.map { try PlanFile.load($0, zone: zone) }
        // A run that fails before the bridge came up and stored a reading leaves no new empty store behind.
        let fresh = FreshStoreFiles(storePath: storeOptions.path)
        let notifier = ServiceNotifier(logger: logger)
        let store = try await storeOptions.open(zone: zone, patients: .any)
        do {
            try await serve(
                store: store,
                notifier: notifier,
                plan: document,
                web: webConfiguration,
                webhookURL: webhookURL,
                catalog: catalog,
                zone: zone,
                logger: logger
            )
        } catch {
            if !notifier.becameReady { await fresh.removeIfNothingStored(in: store) }
            throw error
        }
    }

    /// The bridge's run once its store is open, until it stops; ``run()`` removes a new store again when this
    /// throws before the bridge came up.
    private func serve(
        store: CareStore,
        notifier: ServiceNotifier,
        plan document: CarePlanDocument?,
        web webConfiguration: WebConfiguration?,
        webhookURL: String?,
        catalog: DeviceCatalog,
        zone: TimeZone,
        logger: Logger
    ) async throws {
        if let document {
            try await StoreExit.attempt { try await store.applyPlan(document) }
        }

        var configuration = bluez.configuration()
        configuration.passkey = passkey
        configuration.setDeviceClock = setDeviceClock
        configuration.timeZone = zone
        // Profile sessions (a glucose meter's download cursor, a scale's consent) keep their variables here.
        configuration.sessionMemory = StoreSessionMemory(store: store)
        let live = BlueZTransport(configuration: configuration, policy: catalog, logger: logger) { notifier.status($0) }
        let shutdown = live.shutdown

        var transport: any DeviceTransport = live
        var recorder: RecordingTransport?
        if let record {
            let path = try RecordingFile.create(in: record, zone: zone)
            do {
                recorder = try RecordingTransport(
                    recording: live,
                    to: path,
                    recordedAt: Date(),
                    timeZone: zone,
                    extra: ["adapter": .string(bluez.adapter ?? "default")],
                    logger: logger
                )
            } catch {
                Output.error("cannot write recording \(path): \(error)")
                throw ExitCode(StoreExit.storeUnavailable)
            }
            transport = recorder!
            logger.info("recording", metadata: ["file": "\(path)"])
        }

        // One broker connection for samples and alerts; first in the group, so it is shut down last.
        let connection = try mqtt.makeConnection(publisher: .bridge, logger: logger)
        let publisher = connection.map { mqtt.makePublisher(store: store, connection: $0, zone: zone, logger: logger) }
        // Queueing is on before the first sample is stored.
        if let publisher { try await mqtt.start(publisher) }
        var services: [any Service] = (connection.map { [$0] } ?? []) + (publisher.map { [$0] } ?? [])
        // The care plan in Home Assistant: task sensors, intervention buttons, the day's adherence.
        if let connection {
            services.append(
                PlanStatePublisher(
                    store: store,
                    connection: connection,
                    discovery: mqtt.discovery,
                    zone: zone,
                    logger: logger
                )
            )
        }
        services += try await alertServices(
            store: store,
            webhookURL: webhookURL,
            connection: connection,
            zone: zone,
            logger: logger
        )
        if let url = hub.url {
            // Queueing is on before the first sample is stored; the hub gets what was stored before, too.
            services.append(
                try await Sync.outbox(
                    store: store,
                    hub: url,
                    credential: try hubCredential(),
                    caFile: hub.caFile,
                    option: "--hub",
                    zone: zone,
                    drainTimeout: .seconds(10),
                    logger: logger
                )
            )
        }
        if let url = nightscout.url, let secretFile = nightscout.secretFile {
            // Queueing is on before the first sample is stored; the site gets the stored glucose history, too.
            services.append(
                try await Nightscout.outbox(
                    store: store,
                    url: url,
                    secretFile: secretFile,
                    caFile: nightscout.caFile,
                    patient: nightscoutPatient,
                    options: ("--nightscout", "--nightscout-secret-file"),
                    zone: zone,
                    drainTimeout: .seconds(10),
                    logger: logger
                )
            )
        }
        if let server = fhir.url {
            // Queueing is on before the first sample is stored; the server gets the stored history, too.
            services.append(
                try await FHIR.outbox(
                    store: store,
                    server: server,
                    credential: try FHIR.credential(
                        tokenFile: fhir.secretFile,
                        smart: fhirSmart,
                        options: Self.fhirCredentialOptions,
                        environment: ProcessInfo.processInfo.environment
                    ),
                    caFile: fhir.caFile,
                    subject: nil,
                    options: Self.fhirCredentialOptions,
                    zone: zone,
                    drainTimeout: .seconds(10),
                    logger: logger
                )
            )
        }
        services.append(
            ScannerWatchdog(
                scanner: live.scanner,
                silenceLimit: .milliseconds(Int64(scannerWatchdog * 1000)),
                clock: ContinuousClock(),
                logger: logger
            )
        )
        // The care app last: shut down first, its live streams before the rest.
        if let webConfiguration {
            services += try await WebOptions.services(store: store, configuration: webConfiguration, logger: logger)
        }

        var pipelineConfiguration = PipelineConfiguration(timeZone: zone, clockSkewTolerance: clockSkewTolerance)
        pipelineConfiguration.bindKeys = try bindKeyOptions.load(logger: logger)
        let bridge = Bridge(
            source: .live(transport) { reason in
                if reason == .shutdown {
                    logger.info("stopping (signal)")
                    ServiceManager.notify("STOPPING=1")
                }
                shutdown.request()
            },
            catalog: catalog,
            configuration: pipelineConfiguration,
            store: store,
            services: services,
            duration: duration.map { .milliseconds(Int64(($0 * 1000).rounded())) },
            forceQuit: ForcedStop.handler,
            logger: logger
        )
        let outcome: BridgeOutcome
        do {
            outcome = try await bridge.run()
        } catch let error as TransportError {
            recorder?.close()
            // BlueZExit.fail prints the error once, on standard error (the journal under systemd).
            throw BlueZExit.fail(error)
        } catch let error as CareStoreError {
            recorder?.close()
            throw StoreExit.fail(error)
        }
        recorder?.close()
        if let publisher { _ = await mqtt.report(publisher) }  // what is left waits in the outbox for the next run
        logger.info(
            "bridge stopped",
            metadata: [
                "events": "\(outcome.report.events)", "samples": "\(outcome.report.samples)",
                "inserted": "\(outcome.inserted)", "duplicates": "\(outcome.duplicates)",
                "completedEvents": "\(outcome.completed.count)",
                "downloadedRecords": "\(outcome.report.downloadedRecords)",
            ]
        )
        for device in outcome.report.devices where device.downloadedRecords > 0 {
            let records = ReplaySummary.records(device.downloadedRecords)
            logger.info(
                "downloaded \(records)",
                metadata: ["device.address": "\(device.identity.address ?? device.identity.key)"]
            )
        }
    }

    /// The alert rules evaluated in process when the plan has any, and the outbox services delivering them to
    /// --alert-webhook, --smtp and, with --mqtt, on the same broker connection (Home Assistant binary sensors): the
    /// outboxes before the evaluation, so that they drain after its last evaluation at shutdown.
    func alertServices(
        store: CareStore,
        webhookURL: String?,
        connection: BrokerConnection?,
        zone: TimeZone,
        logger: Logger
    ) async throws -> [any Service] {
        do {
            guard try await AlertService.planHasRules(store) else {
                if webhookURL != nil { Output.error("warning: --alert-webhook: the care plan has no alert rules") }
                if smtp.url != nil { Output.error("warning: --smtp: the care plan has no alert rules") }
                return []
            }
            let channels = try await AlertChannels(
                store: store,
                webhook: webhookURL,
                webhookCAFile: alertWebhookCAFile,
                webhookOption: "--alert-webhook",
                connection: connection,
                email: try smtp.sender(store: store, zone: zone),
                discovery: mqtt.discovery,
                zone: zone,
                drainTimeout: .milliseconds(Int64((mqtt.wait * 1000).rounded())),
                logger: logger
            )
            return channels.outboxes + [AlertService(store: store, outboxes: channels.outboxes, logger: logger)]
        } catch let error as CareStoreError {
            throw StoreExit.fail(error)
        }
    }
}

/// Turns transport status into sd_notify messages (no-ops outside systemd) and log lines.
final class ServiceNotifier: Sendable {
    let logger: Logger
    private let ready = Atomic<Bool>(false)

    /// Whether the transport came up (discovering on an adapter) at least once.
    var becameReady: Bool { ready.load(ordering: .relaxed) }

    init(logger: Logger) { self.logger = logger }

    func status(_ status: BlueZStatus) {
        switch status {
        case .ready(let adapter):
            ready.store(true, ordering: .relaxed)
            ServiceManager.notify("READY=1\nSTATUS=discovering on \(adapter)")
        case .alive:
            ServiceManager.notify("WATCHDOG=1")
        case .paused(let reason):
            ServiceManager.notify("STATUS=paused: \(reason)")
        case .resumed(let adapter):
            ServiceManager.notify("STATUS=discovering on \(adapter)")
            logger.info("resumed", metadata: ["adapter": "\(adapter)"])
        }
    }
}

/// Recording files written by `run --record`.
enum RecordingFile {
    /// Why recordings cannot be written into `directory` (created with its parents when missing), or nil: the
    /// nearest existing part of the path must be a directory this process may write.
    static func problem(directory: String) -> String? {
        var candidate = directory
        while true {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory) {
                guard isDirectory.boolValue else {
                    return candidate == directory ? "is not a directory" : "\(candidate) is not a directory"
                }
                guard access(candidate, W_OK | X_OK) == 0 else {
                    return candidate == directory
                        ? "the directory is not writable"
                        : "cannot be created: \(candidate) is not writable"
                }
                return nil
            }
            let parent = (candidate as NSString).deletingLastPathComponent
            guard parent != candidate else { return nil }
            candidate = parent.isEmpty ? "." : parent
        }
    }

    static func create(in directory: String, zone: TimeZone) throws -> String {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            Output.error("cannot create recording directory \(directory): \(error.localizedDescription)")
            throw ExitCode(StoreExit.storeUnavailable)
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "yyyyMMdd'T'HHmmss"
        return (directory as NSString).appendingPathComponent("carebridge-\(formatter.string(from: Date())).jsonl")
    }
}
