import ArgumentParser
import BridgeFoundation
import CareStore
import CareUploads
import Foundation
import MQTTBridge
import SampleExport

/// `carebridge fhir push`: drains the FHIR outbox once.
struct FHIRPush: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Send the readings that wait for the FHIR server, in order, and wait for its answers.",
        discussion: """
            Readings go to the server as transaction Bundles in the shape of HL7's Personal Health Device IG 2.0 \
            (the same as `export --format fhir --bundle transaction`: this machine as the gateway, a Device per \
            meter, scale or cuff, MDC and LOINC codes, coincident time stamps), each resource a conditional \
            create on its identifier, one Bundle at a time. The bearer token is read from --token-file (or the \
            systemd credential fhir-token) and sent only in the Authorization header. The first push (or `run \
            --fhir-server`) on a store queues every sample it holds; from then on each sample is queued in the \
            transaction that stores it, a deleted one as entered-in-error. An entry leaves the queue only when the \
            server confirmed its Bundle; a Bundle sent again creates nothing new. A failed post (no connection, \
            HTTP 5xx, 429) is retried, after the server's Retry-After when it gives one, until --timeout: exit \
            status 75 when something is still waiting then; 77 when the server refused the token (nothing is \
            removed). See docs/fhir.md.

            With SMART Backend Services (--smart-client-id), each token comes from the server's token endpoint \
            for a JWT signed with --smart-key-file (ES384 or RS384), kept until it expires.

            Examples:
              carebridge fhir push --server https://fhir.example/r4 \\
                --token-file /etc/carebridge/fhir.token
              carebridge fhir push --server https://fhir.example/r4 \\
                --smart-client-id carebridge-7 --smart-key-file /etc/carebridge/fhir.pem

            \(StoreExit.help)
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Option(
        name: .long,
        help: ArgumentHelp("The FHIR server's base (https://; http:// only to this machine).", valueName: "url")
    )
    var server: String

    @Option(
        name: .customLong("token-file"),
        help: ArgumentHelp("A file holding the bearer token (its first line).", valueName: "file")
    )
    var tokenFile: String?

    @OptionGroup var smart: SMARTOptions<FHIRPush>

    @Option(
        name: .long,
        help: ArgumentHelp(
            "FHIR subject of every Observation, e.g. Patient/123 (default: the store's patient).",
            valueName: "reference"
        )
    )
    var subject: String?

    @OptionGroup var push: UploadPushOptions

    static let credentialOptions = FHIR.CredentialOptions(
        server: "--server",
        tokenFile: "--token-file",
        smart: FHIRPush.self
    )

    func validate() throws {
        if let subject, let problem = FHIRReference.problem(withSubject: subject) {
            throw ValidationError("--subject: \(problem)")
        }
    }

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let store = try await storeOptions.open(zone: zone, mode: .existing, patients: .any)
        let outbox = try await FHIR.outbox(
            store: store,
            server: server,
            credential: try FHIR.credential(
                tokenFile: tokenFile,
                smart: smart,
                options: Self.credentialOptions,
                environment: ProcessInfo.processInfo.environment
            ),
            caFile: push.caFile,
            subject: subject,
            options: Self.credentialOptions,
            zone: zone,
            drainTimeout: .seconds(push.timeout),
            logger: CLILogging.logger
        )
        try await UploadPush.drain(
            outbox,
            receiver: "the FHIR server",
            items: { "\($0) reading\($0 == 1 ? "" : "s")" },
            options: push
        )
    }
}

// MARK: - SMARTOptionNames

extension FHIRPush: SMARTOptionNames {
    static let smartOptions = (
        prefix: "smart",
        clientID: "SMART Backend Services: the client id the server registered (instead of --token-file).",
        keyFile: "The SMART client's PEM private key, P-384 or RSA (default: the systemd credential fhir-smart-key).",
        tokenURL: "The SMART token endpoint (default: from the server's .well-known/smart-configuration)."
    )
}
