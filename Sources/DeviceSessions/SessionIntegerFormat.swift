/// How an integer is laid out in a payload: width in bytes and byte order (`u8`, `u16`, `u32`, `u16be`,
/// `u32be`; BLE's default is little-endian).
public struct SessionIntegerFormat: Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var bigEndian: Bool

    public init(width: Int, bigEndian: Bool = false) {
        self.width = width
        self.bigEndian = bigEndian
    }

    /// Parses `u8`, `u16`, `u24`, `u32` with an optional `be` suffix.
    public init?(_ text: String) {
        var name = Substring(text)
        bigEndian = name.hasSuffix("be")
        if bigEndian { name = name.dropLast(2) }
        guard name.hasPrefix("u"), let bits = Int(name.dropFirst()), [8, 16, 24, 32].contains(bits) else { return nil }
        width = bits / 8
    }

    public var description: String { "u\(width * 8)\(bigEndian ? "be" : "")" }

    /// The value's bytes, or nil when it does not fit the width (negative or too large).
    public func bytes(_ value: Int) -> [UInt8]? {
        guard value >= 0, width >= 8 || value < 1 << (width * 8) else { return nil }
        let little = (0..<width).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        return bigEndian ? little.reversed() : little
    }

    /// The integer at `offset` of `bytes`, or nil when the value is too short.
    public func read(_ bytes: [UInt8], at offset: Int) -> Int? {
        guard offset >= 0, width <= bytes.count, offset <= bytes.count - width else { return nil }
        let slice = bytes[offset..<offset + width]
        let ordered = bigEndian ? Array(slice.reversed()) : Array(slice)
        return ordered.enumerated().reduce(0) { $0 | Int($1.element) << ($1.offset * 8) }
    }
}
