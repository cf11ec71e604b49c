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
    /// - Throws: ``UploadFailure`` when the file cannot be read.
    static func contents(of file: String, what: String) throws(UploadFailure) -> String {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8), !text.isEmpty else {
            throw UploadFailure(description: "cannot read \(what) from \(file)")
        }
        return text
    }
}
