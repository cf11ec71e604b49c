import ArgumentParser
import BridgeFoundation
import CareHub
import CareStore
import Foundation
import Logging
import MQTTBridge

/// `carebridge sync …`: the bridge's side of the hub.
struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send this bridge's readings, outcomes and alerts to its hub.",
        discussion: """
            Examples:
              carebridge sync push --hub https://hub.example.org:8443 \\
                  --token-file /etc/carebridge/hub-token
              carebridge sync certificate-request --bridge home-17 \\
                  --key /etc/carebridge/hub-client.key --csr home-17.csr
              carebridge sync push --hub https://hub.example.org:8443 \\
                  --client-cert /etc/carebridge/hub-client.pem \\
                  --client-key /etc/carebridge/hub-client.key
            """,
        subcommands: [SyncPush.self, SyncCertificateRequest.self]
    )

    /// The bridge's credential from its options: a token file, or a client certificate and its key (a key other
    /// users can read is warned about).
    /// - Parameter options: the options' names as the command spells them (token file, certificate, key).
    /// - Throws: `ValidationError` unless exactly one of the two is given, the certificate with its key.
    static func credential(
        tokenFile: String?,
        certificate: String?,
        key: String?,
        options: (tokenFile: String, certificate: String, key: String)
    ) throws -> HubClient.Credential {
        switch (tokenFile, certificate, key) {
        case (let tokenFile?, nil, nil):
            return .tokenFile(tokenFile)
        case (nil, let certificate?, let key?):
            SecretFile.warnIfShared(key, option: options.key)
            return .certificate(file: certificate, keyFile: key)
        case (nil, nil, nil):
            throw ValidationError("the hub needs \(options.tokenFile), or \(options.certificate) and \(options.key)")
        case (nil, _, _):
            throw ValidationError("\(options.certificate) and \(options.key) go together")
        default:
            throw ValidationError("\(options.tokenFile) or \(options.certificate): one credential, not both")
        }
    }

    /// The hub channel's outbox service over `store`, queueing enabled (the first time with every stored sample).
    /// - Throws: `ValidationError` naming the options for a bad address or file; a store failure as its exit.
    static func outbox(
        store: CareStore,
        hub: String,
        credential: HubClient.Credential,
        caFile: String?,
        option: String,
        zone: TimeZone,
        drainTimeout: Duration,
        logger: Logger
    ) async throws -> OutboxService<HubSyncChannel> {
        let client = try await UploadPush.client(options: option) {
            try HubClient(hub: hub, credential: credential, caFile: caFile)
        }
        return try await UploadPush.outbox(
            HubSyncChannel(store: store, client: client, zone: zone, logger: logger),
            store: store,
            drainTimeout: drainTimeout,
            logger: logger
        )
    }
}

/// `carebridge sync push`: drains the hub outbox once.
struct SyncPush: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Send what waits for the hub, in order, and wait for the hub's receipts.",
        discussion: """
            The first push (or `run --hub`) on a store queues every sample and outcome it holds and every open \
            alert; from then on each sample, outcome (an undo included) and alert change is queued in the \
            transaction that writes it. A batch leaves the queue only when the hub confirmed it, so \
            an interrupted push loses nothing and the next one sends what is left (the hub keeps each reading \
            once). Each push also brings down what the hub has for this bridge's patients (plans, \
            acknowledgements, quarantine releases: `carebridge hub plan`) and applies it in the hub's order. \
            A failed batch (no connection, HTTP 5xx, or a refusal) is retried with back-off until \
            --timeout; exit status 75 when something is still waiting then; 77 at once when the hub refuses the \
            bridge's token or client certificate (unknown, replaced by a later enrolment, expired, from another \
            CA; nothing is removed).

            Examples:
              carebridge sync push --hub https://hub.example:8443 \\
                  --token-file /etc/carebridge/hub.token

            \(StoreExit.help)
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("The hub's address.", valueName: "url"))
    var hub: String

    @Option(
        name: .customLong("token-file"),
        help: ArgumentHelp("A file holding the bridge's token (from `hub enrol`).", valueName: "file")
    )
    var tokenFile: String?

    @Option(
        name: .customLong("client-cert"),
        help: ArgumentHelp(
            "The bridge's client certificate, PEM (from `hub enrol --csr`), instead of a token.",
            valueName: "file"
        )
    )
    var clientCertificate: String?

    @Option(
        name: .customLong("client-key"),
        help: ArgumentHelp("The key of --client-cert, PEM (from `sync certificate-request`).", valueName: "file")
    )
    var clientKey: String?

    @OptionGroup var push: UploadPushOptions

    func validate() throws {
        _ = try credential()
    }

    func credential() throws -> HubClient.Credential {
        try Sync.credential(
            tokenFile: tokenFile,
            certificate: clientCertificate,
            key: clientKey,
            options: ("--token-file", "--client-cert", "--client-key")
        )
    }

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let store = try await storeOptions.open(zone: zone, mode: .existing, patients: .any)
        let outbox = try await Sync.outbox(
            store: store,
            hub: hub,
            credential: try credential(),
            caFile: push.caFile,
            option: "--hub",
            zone: zone,
            drainTimeout: .seconds(push.timeout),
            logger: CLILogging.logger
        )
        let drained = await outbox.drain(timeout: .seconds(push.timeout))
        // What the drain waited for includes a due pull of the hub's changes; what is queued is the entries.
        let left = drained == 0 ? 0 : await outbox.channel.queuedCount()
        await outbox.stop()
        let sent = await outbox.channel.sent
        let skipped = await outbox.channel.skipped
        let applied = await outbox.channel.applied
        let refused = await outbox.channel.refused
        let refusal = await outbox.channel.refusal
        if push.json {
            print(
                JSONValue.object([
                    "sent": .int(sent), "skipped": .int(skipped), "pending": .int(left),
                    "changesApplied": .int(applied), "changesRefused": .int(refused),
                ]).serialized()
            )
        } else {
            print("sent \(sent) message\(sent == 1 ? "" : "s") to the hub; \(max(left, 0)) waiting")
            if applied + refused > 0 {
                print("from the hub: \(applied) change\(applied == 1 ? "" : "s") applied, \(refused) refused")
            }
        }
        if let refusal {
            Output.error("\(refusal); \(UploadPush.entries(max(left, 0))) \(left == 1 ? "stays" : "stay") queued")
            throw ExitCode(77)
        }
        if left == 0 && drained != 0 {
            Output.error("the hub's changes could not be fetched; push again later")
            throw ExitCode(75)
        }
        if left != 0 {
            Output.error("\(left) entr\(left == 1 ? "y is" : "ies are") still waiting for the hub; push again later")
            throw ExitCode(75)
        }
    }
}

// MARK: - Receiver

extension Sync: Receiver {
    static let receiverOption = "hub"
    static let receiverHelp = "Send readings to this hub as they are stored."
    static let secretFileOption = "hub-token-file"
    static let secretFileHelp = "The bridge's token for --hub (from `hub enrol`)."
}
