import ArgumentParser
import BridgeFoundation
import CareUploads
import Foundation

/// `carebridge fhir smart-jwks`: the public JWK set a FHIR server's administrator registers for this SMART client.
struct FHIRSmartJWKS: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "smart-jwks",
        abstract: "Print the public JWK set to register for SMART Backend Services.",
        discussion: """
            A FHIR server that accepts SMART Backend Services (`fhir push --smart-client-id`, `run \
            --fhir-smart-client-id`) verifies each client assertion with the public key registered for the \
            client, given as a JWK set. This prints that set as JSON on standard output, made from the private \
            key `fhir push` signs with (--smart-key-file, else the systemd credential fhir-smart-key): one key \
            with its public parameters only (`kty`, `crv`/`x`/`y` for P-384 or `n`/`e` for RSA), `alg` (ES384 \
            or RS384), `key_ops` ["verify"], and the `kid` every assertion carries in its header (the key's \
            RFC 7638 thumbprint). The private key's parameters are never printed.

            Make the key first, for example with `openssl genpkey -algorithm EC -pkeyopt \
            ec_paramgen_curve:P-384 -out /etc/carebridge/fhir.pem`.

            Examples:
              carebridge fhir smart-jwks --smart-key-file /etc/carebridge/fhir.pem \\
                > carebridge-7.jwks.json
            """
    )

    @Option(
        name: .customLong(SMARTOptions<FHIRPush>.keyFileOption),
        help: ArgumentHelp(FHIRPush.smartOptions.keyFile, valueName: "file")
    )
    var keyFile: String?

    func run() async throws {
        let option = "--" + SMARTOptions<FHIRPush>.keyFileOption
        let file = try FHIR.file(
            keyFile,
            credential: FHIR.smartKeyCredentialName,
            option: option,
            environment: ProcessInfo.processInfo.environment
        )
        let key = try await UploadPush.client(options: option) { try SMARTClientKey(file: file) }
        SecretFile.warnIfShared(file, option: option)
        print(key.jwks.serialized(pretty: Output.isTerminal))
        Output.error("the public key of \(file) (\(key.algorithm), kid \(key.keyID)): register it for the client")
    }
}
