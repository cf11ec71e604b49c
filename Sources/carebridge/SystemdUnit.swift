import ArgumentParser
import Foundation

struct SystemdUnit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "systemd-unit",
        abstract: "Print a ready-to-use systemd unit for `carebridge run`.",
        discussion: """
            Install it with:
              carebridge systemd-unit > /etc/systemd/system/carebridge.service
              systemctl daemon-reload && systemctl enable --now carebridge

            The unit runs as the user `carebridge` (in group `bluetooth`, which Debian's D-Bus policy for \
            org.bluez admits), Type=notify with a watchdog, and restarts the bridge when it exits non-zero (for \
            example 75 after a wedged scanner). See the README section "The daemon on a Raspberry Pi".

            --arguments is split into words like a shell would (quotes group words) and each word is quoted for \
            systemd, so a path with spaces, %, $ or quotes arrives unchanged. Control characters (a newline would \
            add unit directives) are refused, and so is a password inside an --mqtt URL (the unit file is \
            world-readable): give --mqtt-credential FILE instead, which systemd hands to the bridge as the \
            credential `mqtt-password`; likewise --smtp-credential FILE (the relay's user name and password for \
            `run --smtp`) becomes the credential `smtp-credentials`. An --alert-webhook URL is refused there too (its \
            path or query often holds a token): --webhook-credential FILE (the URL on one line) becomes the \
            credential `webhook-url`, which `run` posts alerts to.

            Examples:
              carebridge systemd-unit \\
                  --arguments "--store /var/lib/carebridge/store.sqlite \\
                  --plan /etc/carebridge/plan.json"
              carebridge systemd-unit --mqtt-credential /etc/carebridge/mqtt-password \\
                  --arguments "--store /var/lib/carebridge/store.sqlite \\
                  --mqtt mqtt://bridge@broker"
              carebridge systemd-unit --webhook-credential /etc/cb/webhook-url \\
                  --arguments "--store /var/lib/carebridge/store.sqlite"
            """
    )

    @Option(name: .long, help: ArgumentHelp("Path of the installed executable.", valueName: "path"))
    var executable = "/usr/local/bin/carebridge"

    @Option(
        name: .long,
        parsing: .unconditional,
        help: ArgumentHelp("Extra arguments for `carebridge run` (may start with --).", valueName: "args")
    )
    var arguments = "--store /var/lib/carebridge/store.sqlite"

    @Option(
        name: .customLong("mqtt-credential"),
        help: ArgumentHelp(
            "A root-readable file holding the MQTT password, loaded with LoadCredential=mqtt-password:FILE.",
            valueName: "file"
        )
    )
    var mqttCredential: String?

    @Option(
        name: .customLong("smtp-credential"),
        help: ArgumentHelp(
            "A root-readable file with the SMTP user name and password (two lines), loaded with "
                + "LoadCredential=smtp-credentials:FILE.",
            valueName: "file"
        )
    )
    var smtpCredential: String?

    @Option(
        name: .customLong("webhook-credential"),
        help: ArgumentHelp(
            "A root-readable file with the alert webhook's URL (one line), loaded with "
                + "LoadCredential=webhook-url:FILE.",
            valueName: "file"
        )
    )
    var webhookCredential: String?

    @Option(
        name: .customLong("bind-keys-credential"),
        help: ArgumentHelp(
            "A root-readable file with the bind keys of encrypted broadcast devices (Xiaomi S400/S200), loaded with "
                + "LoadCredential=bind-keys:FILE.",
            valueName: "file"
        )
    )
    var bindKeysCredential: String?

    func validate() throws {
        do {
            _ = try unit()
        } catch {
            throw ValidationError(error.description)
        }
    }

    func run() throws {
        print(try unit())
    }

    func unit() throws(UnitError) -> String {
        try Self.unit(
            executable: executable,
            arguments: arguments,
            mqttCredential: mqttCredential,
            smtpCredential: smtpCredential,
            webhookCredential: webhookCredential,
            bindKeysCredential: bindKeysCredential
        )
    }

    /// Why the unit cannot be written as asked.
    struct UnitError: Error, CustomStringConvertible {
        var description: String
    }

    /// The README installed next to `executable`: `PREFIX/share/doc/carebridge/README.md` for `PREFIX/bin/…`
    /// (`/usr` for the Debian package, `/usr/local` for `install` by hand), else under /usr/local.
    static func documentation(executable: String) -> String {
        let directory = (executable as NSString).deletingLastPathComponent
        let prefix =
            (directory as NSString).lastPathComponent == "bin"
            ? (directory as NSString).deletingLastPathComponent : "/usr/local"
        return (prefix == "/" ? "" : prefix) + "/share/doc/carebridge/README.md"
    }

    static func unit(
        executable: String,
        arguments: String,
        mqttCredential: String? = nil,
        smtpCredential: String? = nil,
        webhookCredential: String? = nil,
        bindKeysCredential: String? = nil
    ) throws(UnitError) -> String {
        let words = try split(arguments)
        /// The value of `option` in `words[index]` (`--option=VALUE` or the word after `--option`).
        func value(of option: String, at index: Int) -> String? {
            let word = words[index]
            if word.hasPrefix(option + "=") { return String(word.dropFirst(option.count + 1)) }
            return index > 0 && words[index - 1] == option ? word : nil
        }
        for index in words.indices {
            if let url = value(of: "--mqtt", at: index), MQTTOptions.urlHasPassword(url) {
                throw UnitError(
                    description: "--arguments: the --mqtt URL carries a password, which would be readable by every "
                        + "user in the unit file and in `ps`; put it in a file and give --mqtt-credential FILE"
                )
            }
            if value(of: "--alert-webhook", at: index) != nil {
                throw UnitError(
                    description: "--arguments: an --alert-webhook URL (whose path or query may hold a token) would be "
                        + "readable by every user in the unit file and in `ps`; put it in a file and give "
                        + "--webhook-credential FILE"
                )
            }
        }
        guard executable.hasPrefix("/") else {
            throw UnitError(description: "--executable must be an absolute path, not '\(executable)'")
        }
        var command = [try quote(executable, what: "--executable"), "run"]
        for word in words { command.append(try quote(word, what: "--arguments")) }
        var credential = ""
        let credentials = [
            ("--mqtt-credential", MQTTOptions.credentialName, mqttCredential),
            ("--smtp-credential", SMTPOptions.credentialName, smtpCredential),
            ("--webhook-credential", AlertWebhook.credentialName, webhookCredential),
            ("--bind-keys-credential", BindKeysOptions.credentialName, bindKeysCredential),
        ]
        for case (let option, let name, let path?) in credentials {
            guard path.hasPrefix("/") else {
                throw UnitError(description: "\(option) must be an absolute path, not '\(path)'")
            }
            guard
                !path.contains(where: {
                    $0.isWhitespace || $0 == ":" || $0 == "%" || $0.asciiValue.map { $0 < 0x20 } == true
                })
            else {
                throw UnitError(
                    description: "\(option): the path may not contain spaces, ':', '%' or control characters"
                )
            }
            credential += "\nLoadCredential=\(name):\(path)"
        }
        return """
            [Unit]
            Description=CareBridge: Bluetooth LE health devices into the care plan
            Documentation=man:carebridge(1) file:\(documentation(executable: executable))
            Requires=bluetooth.service
            After=bluetooth.service

            [Service]
            Type=notify
            NotifyAccess=main
            ExecStart=\(command.joined(separator: " "))
            User=carebridge
            Group=carebridge
            SupplementaryGroups=bluetooth
            StateDirectory=carebridge
            StateDirectoryMode=0700
            Environment=CAREBRIDGE_LOG_LEVEL=info\(credential)
            WatchdogSec=60
            Restart=on-failure
            RestartSec=10
            TimeoutStopSec=20
            NoNewPrivileges=yes
            ProtectSystem=strict
            ProtectHome=yes
            PrivateTmp=yes

            [Install]
            WantedBy=multi-user.target
            """
    }

    /// Splits like a POSIX shell without expansions: whitespace separates words, '…' and "…" group (a backslash
    /// escapes the next character outside single quotes).
    static func split(_ text: String) throws(UnitError) -> [String] {
        if let bad = text.unicodeScalars.first(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw UnitError(
                description:
                    "--arguments may not contain control characters (found U+\(String(bad.value, radix: 16, uppercase: true)); "
                    + "a newline would add directives to the unit)"
            )
        }
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for character in text {
            if escaped {
                current.append(character)
                escaped = false
                continue
            }
            if let open = quote {
                if character == open {
                    quote = nil
                } else if character == "\\", open == "\"" {
                    escaped = true
                } else {
                    current.append(character)
                }
                continue
            }
            switch character {
            case "'", "\"":
                quote = character
                inWord = true
            case "\\":
                escaped = true
                inWord = true
            case _ where character.isWhitespace:
                if inWord { words.append(current) }
                current = ""
                inWord = false
            default:
                current.append(character)
                inWord = true
            }
        }
        guard quote == nil, !escaped else { throw UnitError(description: "--arguments: unterminated quote or escape") }
        if inWord { words.append(current) }
        return words
    }

    /// One word for ExecStart=: `%` and `$` doubled (systemd expands specifiers and variables), and in double
    /// quotes with `\\` and `"` escaped when it has whitespace, quotes, a backslash or a semicolon.
    static func quote(_ word: String, what: String) throws(UnitError) -> String {
        if word.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw UnitError(description: "\(what) may not contain control characters")
        }
        var escaped = word.replacingOccurrences(of: "%", with: "%%").replacingOccurrences(of: "$", with: "$$")
        let needsQuotes =
            escaped.isEmpty
            || escaped.contains { $0.isWhitespace || $0 == "\"" || $0 == "'" || $0 == "\\" || $0 == ";" }
        guard needsQuotes else { return escaped }
        escaped = escaped.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return "\"" + escaped + "\""
    }
}
