import ArgumentParser
import Foundation

/// Where the alert webhook's URL comes from, shared by `alerts deliver` (`--webhook`, `--webhook-url-file`) and
/// `run` (`--alert-webhook`, `--alert-webhook-url-file`): the command line, a file, or the systemd credential
/// `webhook-url` (`systemd-unit --webhook-credential`).
///
/// A URL on the command line is visible to every user in `ps`, so one with `user:password@` is refused (without
/// showing it) and one with a query draws a warning; in a file the URL may carry them, and `user:password@`
/// becomes an `Authorization: Basic` header. Messages never show the URL.
struct AlertWebhook {
    /// The systemd credential holding the URL.
    static let credentialName = "webhook-url"

    /// The URL given on the command line.
    var argument: String?
    /// The file holding the URL.
    var file: String?
    /// The PEM CA file for an https:// URL.
    var caFile: String?
    /// The options' names, for messages.
    var options: (url: String, file: String, caFile: String)

    /// Where the URL was read from when not from the command line.
    private func source(_ environment: [String: String]) -> (path: String, what: String)? {
        if let file { return (file, options.file) }
        if argument == nil, let path = SecretFile.credential(Self.credentialName, environment: environment) {
            return (path, "the systemd credential \(Self.credentialName)")
        }
        return nil
    }

    /// The webhook's URL, checked (scheme, host, port, CA file), or nil when there is no webhook.
    /// - Throws: `ValidationError` (never showing the URL) for both a URL and a file, credentials in a command-line
    ///   URL, a CA file without a webhook, or a URL that cannot be used; exits 66 when the file cannot be read.
    func url(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String? {
        if argument != nil, file != nil {
            throw ValidationError("give \(options.url) URL or \(options.file) FILE, not both")
        }
        if let argument {
            _ = try AlertChannels.webhookSender(url: argument, caFile: caFile, option: options.url, zone: .current)
            if let components = URLComponents(string: argument), components.user != nil || components.password != nil {
                throw ValidationError(
                    "\(options.url): no credentials in the URL (every user sees it in `ps`); put the URL in a file "
                        + "readable only by this user and give \(options.file) FILE"
                )
            }
            return argument
        } else if let source = source(environment) {
            let text = try SecretFile.read(source.path, what: source.what, secret: "webhook URL")
            let lines = text.split(whereSeparator: \.isNewline)
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard lines.count == 1 else {
                throw ValidationError("\(source.what) \(source.path): expected the webhook URL on one line")
            }
            let what = "\(source.what) \(source.path)"
            _ = try AlertChannels.webhookSender(url: lines[0], caFile: caFile, option: what, zone: .current)
            return lines[0]
        } else {
            if caFile != nil { throw ValidationError("\(options.caFile) needs \(options.url) or \(options.file)") }
            return nil
        }
    }

    /// Warns on standard error when the command-line URL has a query (where tokens often live) or the file is
    /// open to other users.
    func warnIfExposed() {
        if let argument, URLComponents(string: argument)?.query != nil {
            Output.error(
                "warning: \(options.url): the URL's query is visible to every user in `ps`; if it holds a token, "
                    + "put the URL in a file and give \(options.file) FILE"
            )
        }
        if let file { SecretFile.warnIfShared(file, option: options.file) }
    }
}
