import Foundation

/// Files that hold a secret (a password): people are told when other users can read one.
enum SecretFile {
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
