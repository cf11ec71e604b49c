import ArgumentParser
import CareStore
import Foundation
import Logging
import MQTTBridge
import MQTTClient

#if canImport(Glibc)
import Glibc
#endif

/// `--mqtt` and its companions, shared by `replay` and `run`.
struct MQTTOptions: ParsableArguments {
    @Option(
        name: .customLong("mqtt"),
        help: ArgumentHelp(
            "Publish every new sample to this MQTT broker, with Home Assistant discovery.",
            discussion: """
                mqtt://[USER@]HOST[:PORT] (port 1883 by default), or mqtts://… for TLS (port 8883 by default; the \
                broker's certificate must chain to --mqtt-ca-file, else to the system's trust store, and name HOST). \
                The password comes from --mqtt-password-file, \
                else $CAREBRIDGE_MQTT_PASSWORD, else the systemd credential `mqtt-password` \
                ($CREDENTIALS_DIRECTORY, see `carebridge systemd-unit --mqtt-credential`); mqtt://user:password@host \
                still works but shows the password in `ps` (a warning says so). Messages show the URL with the \
                password as ***. Samples are queued in the store's outbox in the transaction that stores them and removed only after the \
                broker's PUBACK, so none is lost while the broker is down or the bridge is killed.
                """,
            valueName: "url"
        )
    )
    var url: String?

    /// Password, TLS files and hostname verification for the broker.
    @OptionGroup var broker: MQTTBrokerOptions

    @Option(
        name: .customLong("mqtt-prefix"),
        help: ArgumentHelp("Home Assistant's discovery prefix.", valueName: "prefix")
    )
    var discoveryPrefix = "homeassistant"

    @Option(
        name: .customLong("mqtt-topic"),
        help: ArgumentHelp("First level of the state and availability topics.", valueName: "topic")
    )
    var topic = "carebridge"

    @Option(
        name: .customLong("mqtt-wait"),
        help: ArgumentHelp(
            "Seconds to wait at the end for the outbox to drain (0: do not wait).",
            discussion: "What is still pending then stays in the outbox for the next run with --mqtt.",
            valueName: "seconds"
        )
    )
    var wait: Double = 30

    @Option(
        name: .customLong("mqtt-retry"),
        help: ArgumentHelp(
            "Seconds before the first reconnect attempt after the broker went away; doubles up to 30.",
            valueName: "seconds"
        )
    )
    var retry: Double = 0.25

    func validate() throws {
        try broker.check(url: url)
        try NumericOption.check(wait, "--mqtt-wait", in: 0...NumericOption.day)
        try NumericOption.check(retry, "--mqtt-retry", in: 0.001...3600)
        guard !topic.isEmpty, !topic.contains(where: { "#+".contains($0) }) else {
            throw ValidationError("--mqtt-topic must be a topic name without wildcards")
        }
        guard !discoveryPrefix.isEmpty, !discoveryPrefix.contains(where: { "#+".contains($0) }) else {
            throw ValidationError("--mqtt-prefix must be a topic name without wildcards")
        }
    }

    /// The environment variable holding the broker password.
    static let passwordVariable = MQTTBrokerOptions.passwordVariable
    /// The systemd credential (`LoadCredential=mqtt-password:FILE`) holding the broker password.
    static let credentialName = MQTTBrokerOptions.credentialName

    /// Whether a broker URL carries a password.
    static func urlHasPassword(_ url: String) -> Bool { MQTTSession.Configuration.hasPassword(url: url) }

    /// `--mqtt` with its password replaced by `***`, for every message.
    var redactedURL: String { url.map { MQTTSession.Configuration.redacted(url: $0) } ?? "" }

    /// Topics and discovery configs for `--mqtt-prefix` and `--mqtt-topic`.
    var discovery: HomeAssistantDiscovery {
        HomeAssistantDiscovery(discoveryPrefix: discoveryPrefix, topicPrefix: topic)
    }

    /// The process's one broker connection for `--mqtt`, shared by samples and alerts, not started; nil without
    /// `--mqtt`.
    /// - Parameter publisher: `.bridge` for the daemon, whose connection owns the bridge's availability; nil for a
    ///   one-off command (`replay`, `ingest`), which leaves availability as the publishers set it.
    func makeConnection(publisher: HomeAssistantDiscovery.Publisher?, logger: Logger) throws -> BrokerConnection? {
        guard let url else { return nil }
        return try broker.connection(
            url: url,
            option: "--mqtt",
            publisher: publisher,
            discovery: discovery,
            clientID: "carebridge-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(6))",
            reconnectDelay: .milliseconds(Int64((retry * 1000).rounded())),
            logger: logger
        )
    }

    /// The service delivering the sample outbox on `connection`, not started.
    func makePublisher(
        store: CareStore,
        connection: BrokerConnection,
        zone: TimeZone,
        logger: Logger
    ) -> OutboxService<SampleStateChannel> {
        OutboxService(
            channel: SampleStateChannel(
                store: store,
                connection: connection,
                discovery: discovery,
                zone: zone,
                logger: logger
            ),
            changes: store.changes(),
            drainTimeout: .milliseconds(Int64((wait * 1000).rounded())),
            logger: logger,
            drainProgress: Self.drainProgress()
        )
    }

    /// Turns queueing on, before anything is stored, and starts delivering (connecting in the background); the
    /// bridge then runs the publisher as a service, which drains the outbox for up to --mqtt-wait when it stops.
    func start(_ publisher: OutboxService<SampleStateChannel>) async throws {
        try await StoreExit.attempt {
            try await publisher.channel.enable()
        }
        await publisher.start()
    }

    /// The drain's progress on an interactive standard error (`MQTT: N pending…`), cleared when done.
    static func drainProgress() -> (@Sendable (Int) -> Void)? {
        guard isatty(STDERR_FILENO) != 0 else { return nil }
        return { pending in
            let text = pending > 0 ? "\rcarebridge: MQTT: \(pending) pending…\u{1B}[K" : "\r\u{1B}[K"
            FileHandle.standardError.write(Data(text.utf8))
        }
    }

    /// A one-off delivery by a command that is not the daemon (`ingest --mqtt`): connects, drains the outbox for
    /// up to --mqtt-wait, disconnects (its connection announces no availability), and reports.
    /// - Returns: how many entries are still pending.
    func deliverOnce(_ publisher: OutboxService<SampleStateChannel>) async -> Int {
        let connection = publisher.channel.connection
        await connection.start()
        let pending = await publisher.drain(timeout: publisher.drainTimeout, progress: Self.drainProgress())
        await publisher.stop()
        await connection.stop()
        return await report(publisher, pending: max(pending, 0))
    }

    /// Reports on standard error what the publisher delivered and what it left, once it has stopped.
    /// - Parameter pending: what is left, when not the publisher's own count at its stop.
    /// - Returns: how many entries are still pending.
    func report(_ publisher: OutboxService<SampleStateChannel>, pending: Int? = nil) async -> Int {
        if isatty(STDERR_FILENO) != 0 { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        let stopped = await publisher.pendingAtStop
        let pending = pending ?? stopped ?? 0
        let statistics = await publisher.channel.statistics
        let connection = publisher.channel.connection
        var line = "MQTT: \(statistics.delivered) sample message(s) delivered"
        if statistics.retracted > 0 { line += ", \(statistics.retracted) retraction(s) of deleted samples" }
        if pending > 0 {
            line += "; \(pending) still in the outbox for the next run with --mqtt"
            if await !connection.everConnected {
                line += " (the broker at \(redactedURL) was not reachable"
                line += await connection.lastConnectionError.map { ": \($0))" } ?? ")"
            }
        }
        Output.error(line)
        return pending
    }

    /// Exit status when entries are still pending after `--mqtt-wait` (EX_TEMPFAIL).
    static let pendingExit: Int32 = 75
}
