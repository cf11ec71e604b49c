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
              carebridge fhir smart-jwks --smart-key-file /etc/carebridge/fhir.pem
            """,
        subcommands: [FHIRPush.self, FHIRSmartJWKS.self]
    )

    /// The systemd credential holding the bearer token when no token file is given.
    static let credentialName = "fhir-token"
    /// The systemd credential holding the SMART client's private key when no key file is given.
    static let smartKeyCredentialName = "fhir-smart-key"

    /// How the push authenticates, as the options gave it.
    enum Credential {
        /// A bearer token's file.
        case tokenFile(String)
        /// SMART Backend Services: the client id, its private key's file, the token endpoint (nil: discovered).
        case smart(clientID: String, keyFile: String, tokenURL: String?)

        var file: String {
            switch self {
            case .tokenFile(let file): file
            case .smart(_, let keyFile, _): keyFile
            }
        }
    }

    /// The option names of a command's credential options (`fhir push`'s or `run`'s).
    struct CredentialOptions {
        var server: String
        var tokenFile: String
        var smartClientID: String
        var smartKeyFile: String
        var smartTokenURL: String

        init<Names: SMARTOptionNames>(server: String, tokenFile: String, smart: Names.Type) {
            self.server = server
            self.tokenFile = tokenFile
            smartClientID = "--" + SMARTOptions<Names>.clientIDOption
            smartKeyFile = "--" + SMARTOptions<Names>.keyFileOption
            smartTokenURL = "--" + SMARTOptions<Names>.tokenURLOption
        }
    }

    /// The credential the options give: SMART with a client id (its key from the key file, else the systemd
    /// credential `fhir-smart-key`), else the token file (else the systemd credential `fhir-token`).
    /// - Throws: `ValidationError` when a file is missing, or for a token file beside a SMART client.
    static func credential<Names>(
        tokenFile: String?,
        smart: SMARTOptions<Names>,
        options: CredentialOptions,
        environment: [String: String]
    ) throws -> Credential {
        guard let smartClientID = smart.clientID else {
            if smart.keyFile != nil || smart.tokenURL != nil {
                throw ValidationError(
                    "\(options.smartKeyFile) and \(options.smartTokenURL) need \(options.smartClientID)"
                )
            }
            return .tokenFile(
                try file(tokenFile, credential: credentialName, option: options.tokenFile, environment: environment)
            )
        }
        if tokenFile != nil {
            throw ValidationError("\(options.tokenFile) or \(options.smartClientID), not both")
        }
        return .smart(
            clientID: smartClientID,
            keyFile: try file(
                smart.keyFile,
                credential: smartKeyCredentialName,
                option: options.smartKeyFile,
                environment: environment
            ),
            tokenURL: smart.tokenURL
        )
    }

    /// `given`, else the systemd credential `credential` ($CREDENTIALS_DIRECTORY).
    /// - Throws: `ValidationError` when there is neither.
    static func file(
        _ given: String?,
        credential: String,
        option: String,
        environment: [String: String]
    ) throws -> String {
        if let path = given ?? SecretFile.credential(credential, environment: environment) { return path }
        throw ValidationError("\(option) is needed (or the systemd credential \(credential))")
    }

    /// The FHIR channel's outbox service over `store`, queueing enabled (the first time with every stored
    /// sample). Warns when the token or key file can be read by other users.
    /// - Throws: `ValidationError` naming the options for a bad address or file; a store failure as its exit.
    static func outbox(
        store: CareStore,
        server: String,
        credential: Credential,
        caFile: String?,
        subject: String?,
        options: CredentialOptions,
        zone: TimeZone,
        drainTimeout: Duration,
        logger: Logger
    ) async throws -> OutboxService<FHIRChannel> {
        let client: FHIRClient
        switch credential {
        case .tokenFile(let tokenFile):
            client = try await UploadPush.client(options: "\(options.server) / \(options.tokenFile)") {
                try FHIRClient(url: server, tokenFile: tokenFile, caFile: caFile)
            }
            SecretFile.warnIfShared(tokenFile, option: options.tokenFile)
        case .smart(let clientID, let keyFile, let tokenURL):
            client = try await UploadPush.client(options: "\(options.server) / \(options.smartKeyFile)") {
                let smart = try await SMARTBackendAuthorization(
                    clientID: clientID,
                    keyFile: keyFile,
                    serverURL: server,
                    tokenURL: tokenURL,
                    caFile: caFile
                )
                return try FHIRClient(url: server, authorization: .smart(smart), caFile: caFile)
            }
            SecretFile.warnIfShared(keyFile, option: options.smartKeyFile)
        }
        let patient = try await Export.fhirPatient(store)
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

// MARK: - Receiver

extension FHIR: Receiver {
    static let receiverOption = "fhir-server"
    static let receiverHelp = "Send readings to this FHIR server's base as they are stored (docs/fhir.md)."
    static let secretFileOption = "fhir-token-file"
    static let secretFileHelp =
        "A file holding --fhir-server's bearer token (default: the systemd credential fhir-token)."
}

// MARK: - SMARTOptionNames

/// `run`'s SMART options (`--fhir-smart-…`).
extension FHIR: SMARTOptionNames {
    static let smartOptions = (
        prefix: "fhir-smart",
        clientID: "--fhir-server's SMART Backend Services client id (docs/fhir.md).",
        keyFile: "The SMART client's PEM private key (default: the systemd credential fhir-smart-key).",
        tokenURL: "The SMART token endpoint (default: discovered)."
    )
}
