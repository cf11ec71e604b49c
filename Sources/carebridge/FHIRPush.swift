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

            Example:
              carebridge fhir push --server https://fhir.example/r4 --token-file /etc/carebridge/fhir.token

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

    @Option(
        name: .long,
        help: ArgumentHelp(
            "FHIR subject of every Observation, e.g. Patient/123 (default: the store's patient).",
            valueName: "reference"
        )
    )
    var subject: String?

    @OptionGroup var push: UploadPushOptions

    func validate() throws {
        if let subject, let problem = FHIRReference.problem(withSubject: subject) {
            throw ValidationError("--subject: \(problem)")
        }
    }

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let store = try storeOptions.open(zone: zone, mode: .existing, patients: .any)
        let outbox = try await FHIR.outbox(
            store: store,
            server: server,
            tokenFile: try FHIR.tokenFile(
                tokenFile,
                option: "--token-file",
                environment: ProcessInfo.processInfo.environment
            ),
            caFile: push.caFile,
            subject: subject,
            options: ("--server", "--token-file"),
            zone: zone,
            drainTimeout: .seconds(push.timeout),
            logger: CLILogging.logger
        )
        let channel = outbox.channel
        // Drains until done or --timeout, unless the server refuses the token: then retrying cannot help.
        let left = await withTaskGroup(of: Int?.self) { group in
            group.addTask { await outbox.drain(timeout: .seconds(push.timeout)) { _ in } }
            group.addTask {
                while !Task.isCancelled {
                    if await channel.refusal != nil { return nil }
                    try? await Task.sleep(for: .milliseconds(100))
                }
                return nil
            }
            let first: Int?? = await group.next()
            group.cancelAll()
            if case .some(.some(let pending)) = first { return pending }
            let drained: Int?? = await group.next()
            if case .some(.some(let pending)) = drained { return pending }
            return -1
        }
        await outbox.stop()
        let sent = await channel.sent
        let skipped = await channel.skipped
        let refusal = await channel.refusal
        if push.json {
            var object: JSONObject = ["sent": .int(sent), "skipped": .int(skipped), "pending": .int(left)]
            if let refusal { object["refused"] = .string(refusal) }
            print(JSONValue.object(object).serialized())
        } else {
            print(
                "sent \(sent) reading\(sent == 1 ? "" : "s") to the FHIR server; \(skipped) other entr"
                    + "\(skipped == 1 ? "y" : "ies") skipped; \(max(left, 0)) waiting"
            )
        }
        if let refusal {
            Output.error("\(refusal); \(max(left, 0)) entr\(left == 1 ? "y stays" : "ies stay") queued")
            throw ExitCode(77)
        }
        if left != 0 {
            Output.error(
                "\(left) entr\(left == 1 ? "y is" : "ies are") still waiting for the FHIR server; push again later"
            )
            throw ExitCode(75)
        }
    }
}
