import BridgeFoundation

/// The bind keys of devices that encrypt their advertisements (Xiaomi MiBeacon v4/v5), per Bluetooth address.
///
/// The user keeps them in a file, one device a line: its address and its 16-byte key as 32 hex digits,
/// `8C:D0:B2:F6:BE:EF 0728974d657a4b60964c1b1677f35f7c`; blank lines and lines starting with `#` are ignored. A
/// key is never printed: ``description`` and every parse error name the line, never its text.
public struct BindKeys: Sendable, Hashable, CustomStringConvertible {
    private var keys: [String: [UInt8]]

    /// Why a bind-keys file was refused: the line and what is wrong with it, never the key.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        public var line: Int
        public var message: String

        public var description: String { "line \(line): \(message)" }
    }

    public init() {
        keys = [:]
    }

    /// Keys by address (any case, `:` or `-` separated).
    public init(_ keys: [String: [UInt8]]) {
        self.keys = Dictionary(keys.map { (Self.normalised($0.key), $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// Reads a bind-keys file's text.
    /// - Throws: ``ParseError`` naming the first bad line.
    public init(text: String) throws(ParseError) {
        keys = [:]
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            guard let first = words.first, !first.hasPrefix("#") else { continue }
            let number = index + 1
            guard words.count == 2 else {
                throw ParseError(line: number, message: "expected a Bluetooth address and a 32-digit hex key")
            }
            let address = Self.normalised(String(words[0]))
            guard Self.isAddress(address) else {
                throw ParseError(line: number, message: "the first word is not a Bluetooth address")
            }
            guard let key = Self.key(words[1]) else {
                throw ParseError(line: number, message: "the key is not 32 hex digits (16 bytes)")
            }
            guard keys[address] == nil else {
                throw ParseError(line: number, message: "a second key for \(address)")
            }
            keys[address] = key
        }
    }

    /// The key of the device at `address`, if one is given.
    public subscript(address: String) -> [UInt8]? { keys[Self.normalised(address)] }

    /// The addresses that have a key, sorted.
    public var addresses: [String] { keys.keys.sorted() }

    public var isEmpty: Bool { keys.isEmpty }

    public var description: String { keys.count == 1 ? "1 bind key" : "\(keys.count) bind keys" }

    static func normalised(_ address: String) -> String {
        String(address.uppercased().map { $0 == "-" ? ":" : $0 })
    }

    static func isAddress(_ text: String) -> Bool {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 6 && parts.allSatisfy { $0.count == 2 && UInt8($0, radix: 16) != nil }
    }

    static func key(_ text: Substring) -> [UInt8]? {
        guard text.count == 32, let bytes = try? Hex.bytes(String(text)), bytes.count == 16 else { return nil }
        return bytes
    }
}
