import ArgumentParser
import Foundation
import Logging
import MQTTBridge
import MQTTClient

/// How the bridge reaches an MQTT broker beyond its URL: the password (kept out of the URL and `ps`) and, for
/// `mqtts://`, the CA, an optional client certificate and hostname verification. Shared by `run`/`replay --mqtt`
/// and `alerts deliver --mqtt`.
struct MQTTBrokerOptions: ParsableArguments {
    @Option(
        name: .customLong("mqtt-password-file"),
        help: ArgumentHelp("Read the broker password from this file (its first line).", valueName: "file")
    )
    var passwordFile: String?

    @Option(
        name: .customLong("mqtt-ca-file"),
        help: ArgumentHelp(
            "With mqtts://: the PEM file of the CA that signed the broker's certificate.",
            discussion: "Without it the system's trust store is used.",
            valueName: "file"
        )
    )
    var caFile: String?

    @Option(
        name: .customLong("mqtt-cert-file"),
        help: ArgumentHelp(
            "With mqtts://: the bridge's PEM client certificate, for a broker that requires one.",
            valueName: "file"
        )
    )
    var certificateFile: String?

    @Option(
        name: .customLong("mqtt-key-file"),
        help: ArgumentHelp(
            "With mqtts://: the PEM private key of --mqtt-cert-file (unencrypted; keep it readable by the bridge only).",
            valueName: "file"
        )
    )
    var keyFile: String?

    @Flag(
        name: .customLong("mqtt-no-verify-hostname"),
        help: ArgumentHelp(
            "With mqtts://: accept a broker certificate that does not name the host (the CA is still checked).",
            discussion: """
                Hostname verification is on by default; without it any certificate the CA signed can impersonate \
                the broker. Prefer connecting by a name the certificate lists.
                """
        )
    )
    var noVerifyHostname = false

    /// The environment variable holding the broker password.
    static let passwordVariable = "CAREBRIDGE_MQTT_PASSWORD"
    /// The systemd credential (`LoadCredential=mqtt-password:FILE`) holding the broker password.
    static let credentialName = "mqtt-password"

    /// Refuses TLS options without an `mqtts://` URL, a certificate without its key, and a broker URL that
    /// cannot be used (another scheme, no host, a port outside 1…65535).
    func check(url: String?) throws {
        let tlsOptions = [
            caFile.map { _ in "--mqtt-ca-file" }, certificateFile.map { _ in "--mqtt-cert-file" },
            keyFile.map { _ in "--mqtt-key-file" }, noVerifyHostname ? "--mqtt-no-verify-hostname" : nil,
        ].compactMap { $0 }
        if let first = tlsOptions.first, !(url?.lowercased().hasPrefix("mqtts://") ?? false) {
            throw ValidationError("\(first) needs a TLS broker URL: --mqtt mqtts://HOST[:PORT]")
        }
        if (certificateFile == nil) != (keyFile == nil) {
            throw ValidationError("--mqtt-cert-file and --mqtt-key-file go together")
        }
        // The URL itself (scheme, host, a port within 1…65535) before anything runs; the message shows it with
        // its password as ***.
        if let url {
            do {
                _ = try MQTTSession.Configuration(url: url, clientID: "carebridge")
            } catch {
                throw ValidationError("--mqtt: \(error)")
            }
        }
    }

    /// The broker password from, in order: --mqtt-password-file, $CAREBRIDGE_MQTT_PASSWORD, the systemd credential
    /// `mqtt-password`; nil when none is given (the URL's own, if any, is then used, with a warning that it shows
    /// in `ps`).
    func password(
        url: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> String? {
        func firstLine(_ path: String, what: String) throws -> String {
            let text = try SecretFile.read(path, what: what, secret: "MQTT password")
            return String(text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
                .trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
        }
        if let passwordFile {
            let password = try firstLine(passwordFile, what: "--mqtt-password-file")
            SecretFile.warnIfShared(passwordFile, option: "--mqtt-password-file")
            return password
        }
        if let value = environment[Self.passwordVariable], !value.isEmpty { return value }
        if let path = SecretFile.credential(Self.credentialName, environment: environment) {
            return try firstLine(path, what: "systemd credential")
        }
        if MQTTSession.Configuration.hasPassword(url: url) {
            Output.error(
                "warning: the --mqtt URL carries the password, which other users can see in `ps`: use "
                    + "--mqtt-password-file, $\(Self.passwordVariable) or the systemd credential \(Self.credentialName)"
            )
        }
        return nil
    }

    /// The TLS settings for an `mqtts://` broker, with every file loaded once so that a missing or unusable one is
    /// reported now (exit 66), not as a connection that keeps failing.
    func tls(redactedURL: String) throws -> MQTTSession.Configuration.TLS {
        let tls = MQTTSession.Configuration.TLS(
            caFile: caFile,
            certificateFile: certificateFile,
            keyFile: keyFile,
            verifiesHostname: !noVerifyHostname
        )
        do {
            try tls.validate()
        } catch {
            Output.error("--mqtt \(redactedURL): \(error.message)")
            throw ExitCode(StoreExit.noInput)
        }
        return tls
    }

    /// The process's broker connection for `url` (not started), with the password and TLS settings above; it owns
    /// `publisher`'s availability (nil: a one-off command, which announces none).
    /// - Throws: `ValidationError` naming `option` for a bad URL; exits 66 for an unreadable password or TLS file.
    func connection(
        url: String,
        option: String,
        publisher: HomeAssistantDiscovery.Publisher?,
        discovery: HomeAssistantDiscovery,
        clientID: String,
        reconnectDelay: Duration = .milliseconds(250),
        logger: Logger
    ) throws -> BrokerConnection {
        var configuration: BrokerConnection.Configuration
        do {
            configuration = try BrokerConnection.Configuration(
                brokerURL: url,
                availabilityTopic: publisher.map(discovery.availabilityTopic(for:)),
                clientID: clientID,
                reconnectDelay: reconnectDelay,
                password: try password(url: url)
            )
        } catch let error as MQTTClientError {
            throw ValidationError("\(option): \(error)")
        }
        configuration.publisherConfig = publisher.map(discovery.publisherConfig)
        if configuration.session.tls != nil {
            configuration.session.tls = try tls(redactedURL: MQTTSession.Configuration.redacted(url: url))
        }
        return BrokerConnection(configuration: configuration, logger: logger)
    }
}
