import ArgumentParser
import Foundation

/// Files that hold a secret (a password, a URL with a token): where a systemd credential is, how one is read, and
/// people are told when other users can read one.
enum SecretFile {
    /// The path of the systemd credential `name` ($CREDENTIALS_DIRECTORY/name) when the service was given it.
    static func credential(_ name: String, environment: [String: String]) -> String? {
        guard let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty,
            FileManager.default.fileExists(atPath: directory + "/" + name)
        else { return nil }
        return directory + "/" + name
    }

    /// The text of `path`, which holds `secret` (for the message) and was named by `what` (an option, "the
    /// systemd credential").
    /// - Throws: exits 66 when the file cannot be read, naming the file on standard error, never its content.
    static func read(_ path: String, what: String, secret: String) throws -> String {
        do {
            return String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
        } catch {
            Output.error("cannot read the \(secret) from \(what) \(path): \(error.localizedDescription)")
            throw ExitCode(StoreExit.noInput)
        }
    }

    /// Warns on standard error when `path` is open to users other than its owner (any of mode 0o077), naming
    /// `option` and what to do; says nothing for a file that cannot be examined (its reader reports that).
    static func warnIfShared(_ path: String, option: String) {
        guard let mode = try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int,
            mode & 0o077 != 0
        else { return }
        Output.error(
            "warning: \(option) \(path) can be read by other users (mode \(String(mode, radix: 8))); chmod 600 it"
        )
    }
}
