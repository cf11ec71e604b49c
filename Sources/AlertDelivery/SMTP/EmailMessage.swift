public import Foundation

/// A plain-text e-mail as an ``SMTPClient`` sends it: RFC 5322 headers (`Date`, `Message-ID`, `From`, `To`,
/// `Subject`, MIME 1.0) and a UTF-8 body in quoted-printable, so any text survives any relay; names and subjects
/// outside ASCII become RFC 2047 encoded words. Line breaks in a name or subject are replaced by spaces (a header
/// cannot be injected through them).
public struct EmailMessage: Sendable, Hashable {
    /// A name and an address, `Dr Weber <weber@clinic.example>`.
    public struct Mailbox: Sendable, Hashable {
        public var name: String?
        public var address: String

        public init(name: String? = nil, address: String) {
            self.name = name
            self.address = address
        }

        /// Parses `Name <address>` or a bare `address`.
        /// - Throws: ``SMTPError`` `.invalidMessage` when the address is not one ``SMTPClient`` can send to.
        public init(parsing text: String) throws(SMTPError) {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if let open = trimmed.lastIndex(of: "<"), trimmed.hasSuffix(">") {
                let name = trimmed[..<open].trimmingCharacters(in: .whitespaces)
                    .trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                self.init(
                    name: name.isEmpty ? nil : name,
                    address: String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
                )
            } else {
                self.init(address: trimmed)
            }
            try Self.check(address)
        }

        /// Refuses what cannot go into `MAIL FROM:<…>`/`RCPT TO:<…>` as is: no `@` between a local part and a
        /// domain, a space, a control or non-ASCII character, `<` or `>`.
        /// - Throws: ``SMTPError`` `.invalidMessage`.
        public static func check(_ address: String) throws(SMTPError) {
            let parts = address.split(separator: "@", omittingEmptySubsequences: false)
            let allowed = address.utf8.allSatisfy {
                (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "<") && $0 != UInt8(ascii: ">")
            }
            guard parts.count >= 2, !(parts.first?.isEmpty ?? true), !(parts.last?.isEmpty ?? true), allowed else {
                throw SMTPError(
                    .invalidMessage,
                    "not an e-mail address this client can send to: \(address.debugDescription)"
                )
            }
        }

        /// The header form: the address alone, or the name (quoted or encoded) and the address in `<>`.
        var header: String {
            guard let name, !name.isEmpty else { return address }
            return "\(EmailMessage.phrase(name)) <\(address)>"
        }
    }

    public var from: Mailbox
    public var to: [Mailbox]
    public var subject: String
    /// The text; line breaks may be `\n` or `\r\n`.
    public var body: String
    public var date: Date
    /// The `Message-ID` without its angle brackets (`alert-12-40@ward.example`): the same id on a retry lets a
    /// receiver drop a repeat.
    public var messageID: String
    /// The zone the `Date` header is written in.
    public var zone: TimeZone

    public init(
        from: Mailbox,
        to: [Mailbox],
        subject: String,
        body: String,
        date: Date,
        messageID: String,
        zone: TimeZone = .current
    ) {
        self.from = from
        self.to = to
        self.subject = subject
        self.body = body
        self.date = date
        self.messageID = messageID
        self.zone = zone
    }

    /// The message as sent after `DATA` (before dot-stuffing), lines ending in CRLF.
    public func rendered() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        let headers = [
            "Date: \(formatter.string(from: date))",
            "From: \(from.header)",
            "To: \(to.map(\.header).joined(separator: ",\r\n "))",
            "Subject: \(Self.unstructured(subject))",
            "Message-ID: <\(messageID)>",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: quoted-printable",
            "Auto-Submitted: auto-generated",
        ]
        return headers.joined(separator: "\r\n") + "\r\n\r\n" + Self.quotedPrintable(body) + "\r\n"
    }

    // MARK: - Encodings

    /// A header text on one line: as is in ASCII, else as RFC 2047 encoded words (`=?UTF-8?B?…?=`).
    static func unstructured(_ text: String) -> String {
        let flat = text.replacingOccurrences(of: "\r\n", with: " ").replacingOccurrences(of: "\n", with: " ")
            .replacingOccurrences(of: "\r", with: " ")
        guard flat.unicodeScalars.contains(where: { !(0x20...0x7E).contains($0.value) }) else { return flat }
        return encodedWords(flat)
    }

    /// A display name: an atom or a quoted string in ASCII, encoded words otherwise.
    static func phrase(_ name: String) -> String {
        let flat = unstructured(name)
        if flat.hasPrefix("=?UTF-8?") { return flat }
        let specials = CharacterSet(charactersIn: "()<>[]:;@\\,.\"")
        guard flat.rangeOfCharacter(from: specials) != nil else { return flat }
        return "\"" + flat.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            + "\""
    }

    /// Base64 encoded words of at most 36 bytes of UTF-8 each (whole characters; 60 characters a word, within RFC
    /// 2047's 75), folded onto continuation lines.
    static func encodedWords(_ text: String) -> String {
        var words: [String] = []
        var chunk = ""
        for character in text {
            if chunk.utf8.count + String(character).utf8.count > 36 {
                words.append(chunk)
                chunk = ""
            }
            chunk.append(character)
        }
        if !chunk.isEmpty { words.append(chunk) }
        return words.map { "=?UTF-8?B?\(Data($0.utf8).base64EncodedString())?=" }.joined(separator: "\r\n ")
    }

    /// RFC 2045 quoted-printable of the UTF-8 text: lines end in CRLF, none longer than 76 characters (soft
    /// breaks `=`), `=`, control and non-ASCII bytes and a space or tab ending a line as `=XX`.
    static func quotedPrintable(_ text: String) -> String {
        let lines = text.replacingOccurrences(of: "\r\n", with: "\n").split(
            separator: "\n",
            omittingEmptySubsequences: false
        )
        return lines.map { line -> String in
            let bytes = Array(line.utf8)
            var out = ""
            var length = 0
            for (index, byte) in bytes.enumerated() {
                let last = index == bytes.count - 1
                let plain =
                    ((33...126).contains(byte) && byte != UInt8(ascii: "=")) || ((byte == 32 || byte == 9) && !last)
                let piece = plain ? String(UnicodeScalar(byte)) : "=" + String(format: "%02X", byte)
                if length + piece.count > 75 {
                    out += "=\r\n"
                    length = 0
                }
                out += piece
                length += piece.count
            }
            return out
        }.joined(separator: "\r\n")
    }

    /// The message as transmitted after `DATA`: a line starting with `.` gets a second one (RFC 5321 §4.5.2),
    /// and `.` on a line of its own ends it.
    public static func dotStuffed(_ rendered: String) -> String {
        var text = rendered.hasSuffix("\r\n") ? rendered : rendered + "\r\n"
        if text.hasPrefix(".") { text = "." + text }
        return text.replacingOccurrences(of: "\r\n.", with: "\r\n..") + ".\r\n"
    }
}
