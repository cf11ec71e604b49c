import ArgumentParser
import Foundation
import Logging
import SampleIngest

/// Where the bind keys of devices that encrypt their advertisements (Xiaomi S400/S200 MiBeacon) come from: a
/// file of `ADDRESS KEY` lines, never the command line.
struct BindKeysOptions: ParsableArguments {
    /// The systemd credential `systemd-unit --bind-keys-credential FILE` hands to `run`.
    static let credentialName = "bind-keys"

    @Option(
        name: .customLong("bind-keys"),
        help: ArgumentHelp(
            "A file of bind keys for devices whose advertisements are encrypted (Xiaomi S400/S200): one "
                + "'ADDRESS KEY' line per device, KEY its 32 hex digits; keep it chmod 600 (default: the systemd "
                + "credential bind-keys, else $XDG_CONFIG_HOME/carebridge/bind-keys when it exists).",
            valueName: "file"
        )
    )
    var bindKeys: String?

    /// `$XDG_CONFIG_HOME/carebridge/bind-keys`, falling back to `~/.config/carebridge/bind-keys`.
    static func defaultPath(environment: [String: String]) -> String? {
        if let config = environment["XDG_CONFIG_HOME"], !config.isEmpty { return config + "/carebridge/bind-keys" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.config/carebridge/bind-keys" }
        return nil
    }

    /// The bind keys from --bind-keys, the systemd credential or the default file (none when there is none).
    /// - Throws: exits 66 for an unreadable file and 65 for a malformed one, naming the file and the line, never a
    ///   key.
    func load(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        logger: Logger
    ) throws -> BindKeys {
        let path: String
        let what: String
        if let bindKeys {
            path = bindKeys
            what = "--bind-keys"
            SecretFile.warnIfShared(path, option: what)
        } else if let credential = SecretFile.credential(Self.credentialName, environment: environment) {
            path = credential
            what = "the systemd credential"
        } else if let file = Self.defaultPath(environment: environment), FileManager.default.fileExists(atPath: file) {
            path = file
            what = "the bind-keys file"
            SecretFile.warnIfShared(path, option: what)
        } else {
            return BindKeys()
        }
        let text = try SecretFile.read(path, what: what, secret: "bind keys")
        let keys: BindKeys
        do {
            keys = try BindKeys(text: text)
        } catch {
            Output.error("\(what) \(path): \(error.description)")
            throw ExitCode(StoreExit.invalidData)
        }
        logger.info("bind keys loaded", metadata: ["file": "\(path)", "devices": "\(keys.addresses.count)"])
        return keys
    }
}
