/// What an awaited value must look like: hex bytes with `??` for any byte, matched against the start of the
/// value (`"06 00 01 ??"` is any RACP response to "report stored records"). The empty pattern matches every
/// value.
public struct BytePattern: Sendable, Hashable, CustomStringConvertible {
    /// Each byte, nil for `??`.
    public var bytes: [UInt8?]
    public var description: String

    public init(_ text: String) throws(SessionScriptError) {
        description = text
        bytes = []
        let compact = text.filter { !" :-\t".contains($0) }
        guard compact.count % 2 == 0 else { throw SessionScriptError(text, "odd number of hex digits") }
        var index = compact.startIndex
        while index < compact.endIndex {
            let next = compact.index(index, offsetBy: 2)
            let pair = compact[index..<next]
            if pair == "??" {
                bytes.append(nil)
            } else if let byte = UInt8(pair, radix: 16) {
                bytes.append(byte)
            } else {
                throw SessionScriptError(text, "'\(pair)' is neither a hex byte nor ??")
            }
            index = next
        }
    }

    /// Matches every value.
    public static let any = BytePattern(bytes: [], description: "")

    init(bytes: [UInt8?], description: String) {
        self.bytes = bytes
        self.description = description
    }

    /// True when `value` starts with the pattern.
    public func matches(_ value: [UInt8]) -> Bool {
        guard value.count >= bytes.count else { return false }
        for (index, byte) in bytes.enumerated() where byte != nil && value[index] != byte { return false }
        return true
    }
}
