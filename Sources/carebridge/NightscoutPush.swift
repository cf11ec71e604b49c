import ArgumentParser
import BridgeFoundation
import CareStore
import CareUploads
import Foundation
import MQTTBridge

/// `carebridge nightscout push`: drains the Nightscout outbox once.
struct NightscoutPush: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Send the glucose readings that wait for Nightscout, in order, and wait for the site's answers.",
        discussion: """
            Readings go to the site's API v1 as `mbg` entries (mg/dL, LO/HI marked in `notes`, meal context as \
            notes), with the `api-secret` header (SHA-1 of the secret in --secret-file). The first push (or `run \
            --nightscout`) on a store queues every sample it holds, so the store's glucose history goes up once; \
            from then on each sample is queued in the transaction that stores it, and only glucose is sent. An \
            entry leaves the queue only when the site confirmed it; sending it again replaces it on the site \
            (Nightscout keeps one entry per time and type), so an interrupted push duplicates nothing. A failed \
            upload (no connection, HTTP 5xx, 429) is retried, after the site's Retry-After when it gives one, \
            until --timeout: exit status 75 when something is still waiting then; 77 when the site refused the \
            secret (nothing is removed). With --patient only that patient's readings are sent (a Nightscout site \
            is one person's).

            Examples:
              carebridge nightscout push --url https://ns.example \\
                  --secret-file /etc/carebridge/nightscout.secret

            \(StoreExit.help)
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Option(
        name: .long,
        help: ArgumentHelp("The Nightscout site (https://; http:// only to this machine).", valueName: "url")
    )
    var url: String

    @Option(
        name: .customLong("secret-file"),
        help: ArgumentHelp("A file holding the site's API secret (its first line).", valueName: "file")
    )
    var secretFile: String

    @OptionGroup var push: UploadPushOptions

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let store = try await storeOptions.open(zone: zone, mode: .existing, patients: .any)
        let outbox = try await Nightscout.outbox(
            store: store,
            url: url,
            secretFile: secretFile,
            caFile: push.caFile,
            patient: storeOptions.patient,
            options: ("--url", "--secret-file"),
            zone: zone,
            drainTimeout: .seconds(push.timeout),
            logger: CLILogging.logger
        )
        try await UploadPush.drain(
            outbox,
            receiver: "Nightscout",
            items: { "\($0) glucose reading\($0 == 1 ? "" : "s")" },
            options: push
        )
    }
}
