/// One reply of an SMTP server: its three-digit code and its text lines (RFC 5321 §4.2), e.g. `250` with the
/// extensions an `EHLO` lists.
public struct SMTPReply: Sendable, Hashable, CustomStringConvertible {
    public var code: Int
    /// The text after the code, one entry per line.
    public var lines: [String]

    public init(code: Int, lines: [String]) {
        self.code = code
        self.lines = lines
    }

    /// 2xx: the command was accepted.
    public var isPositive: Bool { (200..<300).contains(code) }
    /// 4xx: a temporary failure (try again later).
    public var isTransient: Bool { (400..<500).contains(code) }
    /// 5xx: a permanent failure (the same command fails again).
    public var isPermanent: Bool { (500..<600).contains(code) }

    /// Whether an `EHLO` reply lists `keyword` (case-insensitive), e.g. `STARTTLS` or `AUTH` with `PLAIN`.
    func offers(_ keyword: String, parameter: String? = nil) -> Bool {
        lines.dropFirst().contains { line in
            let words = line.uppercased().split(separator: " ")
            guard words.first.map(String.init) == keyword.uppercased() else { return false }
            return parameter.map { words.dropFirst().contains(Substring($0.uppercased())) } ?? true
        }
    }

    /// `550 no such user`, lines joined by spaces.
    public var description: String { "\(code) \(lines.joined(separator: " "))".trimmingTrailingSpaces }
}

extension String {
    fileprivate var trimmingTrailingSpaces: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
