import ArgumentParser
import CareStore
import CareUploads
import Foundation
import Logging
import MQTTBridge

/// `carebridge nightscout …`: glucose readings to a Nightscout site.
struct Nightscout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send glucose readings to a Nightscout site.",
        discussion: """
            Examples:
              carebridge nightscout push --url https://ns.example.org \\
                  --secret-file /etc/carebridge/nightscout-secret
            """,
        subcommands: [NightscoutPush.self]
    )

    /// The Nightscout channel's outbox service over `store`, queueing enabled (the first time with every stored
    /// sample; only glucose is sent). Warns when the secret file can be read by other users.
    /// - Throws: `ValidationError` naming the options for a bad address or file; a store failure as its exit.
    static func outbox(
        store: CareStore,
        url: String,
        secretFile: String,
        caFile: String?,
        patient: String?,
        options: (url: String, secretFile: String),
        zone: TimeZone,
        drainTimeout: Duration,
        logger: Logger
    ) async throws -> OutboxService<NightscoutChannel> {
        let client = try await UploadPush.client(options: "\(options.url) / \(options.secretFile)") {
            try NightscoutClient(url: url, secretFile: secretFile, caFile: caFile)
        }
        SecretFile.warnIfShared(secretFile, option: options.secretFile)
        return try await UploadPush.outbox(
            NightscoutChannel(store: store, client: client, patient: patient, zone: zone, logger: logger),
            store: store,
            drainTimeout: drainTimeout,
            logger: logger
        )
    }
}

// MARK: - Receiver

extension Nightscout: Receiver {
    static let receiverOption = "nightscout"
    static let receiverHelp = "Send glucose readings to this Nightscout site as they are stored."
    static let secretFileOption = "nightscout-secret-file"
    static let secretFileHelp = "A file holding the API secret of --nightscout."
}
