import Foundation

/// A credential an upload reads from a file (a bearer token, an API secret, a private key): read once, never
/// shown. Errors name the file and what was expected, never what it holds.
enum CredentialFile {
    /// The file's first line, trimmed.
    /// - Parameter what: the credential as a message names it (`a bearer token`).
    /// - Throws: ``UploadFailure`` when the file cannot be read or its first line is empty.
    static func firstLine(of file: String, what: String) throws(UploadFailure) -> String {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8),
            let line = text.split(separator: "\n").first?.trimmingCharacters(in: .whitespaces), !line.isEmpty
        else {
            throw UploadFailure(description: "cannot read \(what) from \(file)")
        }
        return line
    }

    /// The whole file (a PEM key).
    /// - Throws: ``UploadFailure`` when the file cannot be read or is empty, saying which.
    static func contents(of file: String, what: String) throws(UploadFailure) -> String {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            let why =
                FileManager.default.fileExists(atPath: file)
                ? "this user may not read it, or it is not text" : "there is no such file"
            throw UploadFailure(description: "cannot read \(what) from \(file): \(why)")
        }
        guard !text.isEmpty else { throw UploadFailure(description: "cannot read \(what) from \(file): it is empty") }
        return text
    }
}
