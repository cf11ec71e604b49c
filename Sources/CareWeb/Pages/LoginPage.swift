import Foundation

/// What the sign-in page needs beside its template.
enum LoginPage {
    /// A `next` target that stays on this site: a path, never `//host` or a scheme.
    static func safeNext(_ text: String?) -> String {
        guard let text, text.hasPrefix("/"), !text.hasPrefix("//"), !text.hasPrefix("/\\"),
            !text.contains("\r"), !text.contains("\n")
        else { return "/" }
        return text
    }

    static func escapeQuery(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "/-_.~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? "/"
    }
}
