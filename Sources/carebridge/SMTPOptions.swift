import AlertDelivery
import ArgumentParser
import CareStore
import Foundation

/// E-mail of alerts to the patients' contacts through an SMTP relay, shared by `alerts deliver` and `run`: the
/// relay's URL, the sender, the credentials (from a file, never the command line) and TLS.
struct SMTPOptions: ParsableArguments {
    @Option(
        name: .customLong("smtp"),
        help: ArgumentHelp(
            "E-mail alerts to the contacts who receive them, through this relay (smtp://host[:port], port 587).",
            discussion: """
                Who gets what comes from the plan file's contacts: "receives": ["alerts"] and an e-mail address, \
                and optionally "alertSeverity": "warning" or "critical" (the least severe alert that contact is \
                sent; default every alert).
                """,
            valueName: "url"
        )
    )
    var url: String?

    @Option(
        name: .customLong("smtp-from"),
        help: ArgumentHelp("With --smtp: the sender, `Name <address>` or an address.", valueName: "address")
    )
    var from: String?

    @Option(
        name: .customLong("smtp-credentials-file"),
        help: ArgumentHelp(
            "With --smtp: the relay's user name (first line) and password (second line) for AUTH PLAIN.",
            discussion: """
                Else the systemd credential `smtp-credentials` (LoadCredential=smtp-credentials:FILE), else no \
                authentication. The credentials are only ever sent after STARTTLS.
                """,
            valueName: "file"
        )
    )
    var credentialsFile: String?

    @Option(
        name: .customLong("smtp-ca-file"),
        help: ArgumentHelp(
            "With --smtp: the PEM file of the CA that signed the relay's certificate (else the system's trust store).",
            valueName: "file"
        )
    )
    var caFile: String?

    @Flag(
        name: .customLong("smtp-insecure"),
        help: ArgumentHelp(
            "With --smtp: no STARTTLS, for a relay on this machine only (localhost, 127.0.0.1, ::1).",
            discussion:
                "Without it the relay must offer STARTTLS and its certificate must be trusted and name the host."
        )
    )
    var insecure = false

    /// The systemd credential holding the user name and password.
    static let credentialName = "smtp-credentials"

    /// Refuses e-mail options without --smtp, --smtp without --smtp-from, and a relay or sender that cannot be used.
    func check() throws {
        guard let url else {
            let given = [
                from.map { _ in "--smtp-from" }, credentialsFile.map { _ in "--smtp-credentials-file" },
                caFile.map { _ in "--smtp-ca-file" }, insecure ? "--smtp-insecure" : nil,
            ].compactMap { $0 }
            if let first = given.first { throw ValidationError("\(first) needs --smtp smtp://HOST[:PORT]") }
            return
        }
        guard let from else { throw ValidationError("--smtp needs --smtp-from ADDRESS (the sender of the alerts)") }
        do {
            _ = try EmailMessage.Mailbox(parsing: from)
        } catch {
            throw ValidationError("--smtp-from: \(error)")
        }
        if insecure, caFile != nil { throw ValidationError("--smtp-ca-file and --smtp-insecure exclude each other") }
        _ = try configuration(url: url, credentials: nil)
    }

    /// The relay's host and port from the URL, with TLS as the flags say.
    func configuration(
        url: String,
        credentials: SMTPClient.Configuration.Credentials?
    ) throws
        -> SMTPClient.Configuration
    {
        guard let components = URLComponents(string: url), components.scheme?.lowercased() == "smtp",
            let host = components.host, !host.isEmpty
        else {
            throw ValidationError("--smtp: not an smtp://host[:port] URL")
        }
        if components.user != nil || components.password != nil {
            throw ValidationError("--smtp: no credentials in the URL (it shows in `ps`); use --smtp-credentials-file")
        }
        let configuration = SMTPClient.Configuration(
            host: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")),
            port: components.port ?? 587,
            security: insecure ? .insecureLoopback : .startTLS(caFile: caFile),
            credentials: credentials
        )
        do {
            _ = try SMTPClient(configuration: configuration)
        } catch {
            throw ValidationError("--smtp: \(error)")
        }
        return configuration
    }

    /// The e-mail sender for the alert outbox, or nil without --smtp.
    /// - Throws: exits 66 when the credentials file cannot be read or lacks a line (naming the file, never its
    ///   content); `ValidationError` for a bad URL or sender.
    func sender(
        store: CareStore,
        zone: TimeZone,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> EmailAlertSender? {
        guard let url, let from else { return nil }
        let client: SMTPClient
        do {
            client = try SMTPClient(configuration: try configuration(url: url, credentials: credentials(environment)))
        } catch let error as SMTPError {
            throw ValidationError("--smtp: \(error)")
        }
        return EmailAlertSender(store: store, client: client, from: try EmailMessage.Mailbox(parsing: from), zone: zone)
    }

    /// The user name and password from --smtp-credentials-file, else the systemd credential; nil when neither.
    func credentials(_ environment: [String: String]) throws -> SMTPClient.Configuration.Credentials? {
        var source: (path: String, what: String)?
        if let credentialsFile {
            source = (credentialsFile, "--smtp-credentials-file")
        } else if let path = SecretFile.credential(Self.credentialName, environment: environment) {
            source = (path, "systemd credential")
        }
        guard let source else { return nil }
        if credentialsFile != nil { SecretFile.warnIfShared(source.path, option: "--smtp-credentials-file") }
        let text = try SecretFile.read(source.path, what: source.what, secret: "SMTP credentials")
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\r")) }
        guard lines.count >= 2, !lines[0].isEmpty, !lines[1].isEmpty else {
            Output.error(
                "\(source.what) \(source.path): expected the user name on the first line and the password on the second"
            )
            throw ExitCode(StoreExit.noInput)
        }
        return .init(user: lines[0], password: lines[1])
    }
}
