import ArgumentParser
import CareStore
import CareUploads
import Foundation
import Logging
import MQTTBridge
import SampleExport

/// `carebridge fhir …`: readings to a FHIR server in the PHD IG shape.
struct FHIR: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send readings to a FHIR server (HL7 Personal Health Device IG 2.0).",
        discussion: """
            Examples:
              carebridge fhir push --server https://fhir.example/r4 \\
                --token-file /etc/carebridge/fhir.token
            """,
        subcommands: [FHIRPush.self]
    )

    /// The systemd credential holding the bearer token when no token file is given.
    static let credentialName = "fhir-token"

    /// The token file: `tokenFile`, else the systemd credential `fhir-token` ($CREDENTIALS_DIRECTORY).
    /// - Throws: `ValidationError` when there is neither.
    static func tokenFile(_ tokenFile: String?, option: String, environment: [String: String]) throws -> String {
        if let tokenFile { return tokenFile }
        if let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty,
            FileManager.default.fileExists(atPath: directory + "/" + credentialName)
        {
            return directory + "/" + credentialName
        }
        throw ValidationError("\(option) is needed (or the systemd credential \(credentialName))")
    }

    /// The FHIR channel's outbox service over `store`, queueing enabled (the first time with every stored
    /// sample). Warns when the token file can be read by other users.
    /// - Throws: `ValidationError` naming the options for a bad address or file; a store failure as its exit.
    static func outbox(
        store: CareStore,
        server: String,
        tokenFile: String,
        caFile: String?,
        subject: String?,
        options: (server: String, tokenFile: String),
        zone: TimeZone,
        drainTimeout: Duration,
        logger: Logger
    ) async throws -> OutboxService<FHIRChannel> {
        let client: FHIRClient
        do {
            client = try FHIRClient(url: server, tokenFile: tokenFile, caFile: caFile)
        } catch {
            throw ValidationError("\(options.server) / \(options.tokenFile): \(error)")
        }
        SecretFile.warnIfShared(tokenFile, option: options.tokenFile)
        let patient = try Export.fhirPatient(store)
        let channel = FHIRChannel(
            store: store,
            client: client,
            options: FHIRBundleWriter.Options(
                bundleType: .transaction,
                subject: subject,
                timeZone: zone,
                patient: patient,
                gateway: GatewayIdentity.current()
            ),
            patient: store.patientScope,
            logger: logger
        )
        return try await UploadPush.outbox(channel, store: store, drainTimeout: drainTimeout, logger: logger)
    }
}
