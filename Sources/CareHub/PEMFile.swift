import BridgeFoundation
import Foundation

/// PEM files the hub's enrolment writes: a private key (the bridge's, the client CA's) is created owner-only
/// (0600 from the start, through ``SafeOutputFile``) and never replaces an existing file; a certificate or a
/// request is public (0644).
enum PEMFile {
    /// Writes `text` to `path`.
    /// - Parameters:
    ///   - what: the file as a message names it (`the bridge's key`).
    ///   - secret: a private key: mode 0600, and an existing file is refused rather than overwritten.
    /// - Throws: ``HubError`` `.configuration` naming the file (never its content).
    static func write(_ text: String, to path: String, what: String, secret: Bool) throws(HubError) {
        if secret, FileManager.default.fileExists(atPath: path) {
            throw HubError(.configuration, "\(what) \(path) exists: a key is never overwritten (remove it first)")
        }
        do {
            let file = try SafeOutputFile(path: path, mode: secret ? 0o600 : 0o644)
            try file.write(text)
            try file.commit()
        } catch {
            throw HubError(.configuration, "cannot write \(what) \(path): \(error)")
        }
    }
}
