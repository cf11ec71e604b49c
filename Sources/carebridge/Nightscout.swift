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
        let client: NightscoutClient
        do {
            client = try NightscoutClient(url: url, secretFile: secretFile, caFile: caFile)
        } catch {
            throw ValidationError("\(options.url) / \(options.secretFile): \(error)")
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
