/// The payload bytes a provenance box holds: the caller's array as it was given, or, for up to
/// ``inlineCapacity`` bytes copied from elsewhere (a store read's blob column), the bytes themselves.
///
/// A store read makes one provenance box per sample it returns (a day of heart rate: 86,398 of them), and a
/// `[UInt8]` payload would be a second heap allocation per sample, to make and later to free. A heart-rate
/// notification at rest (flags, rate, one or two RR intervals) is 4 to 6 bytes, so it fits in one word of the box;
/// ``QuantitySample/rawPayload`` stays a `[UInt8]`, made when it is asked for. A payload given as an array (the
/// pipeline's, a caller's) is kept as that array, shared and not copied.
///
/// Sixteen bytes, no more, on purpose: with a 32-byte inline buffer the box grew from 120 to 144 bytes, past
/// glibc's fastbin size, and the decode benchmark lost 13 % on weight measurements.
///
/// Equal and hashed by the bytes, however they are held.
struct PayloadBytes: Hashable, Sendable {
    /// Inline: up to 7 bytes, byte i in bits 8i to 8i + 7, their count in the top byte. Otherwise ``arrayMarker``.
    private var word: UInt64
    /// The bytes when they are not inline (empty, and allocating nothing, when they are).
    private var bytes: [UInt8]

    /// The longest payload ``init(copying:)`` holds inline.
    static let inlineCapacity = 7
    private static let arrayMarker: UInt64 = 0xFF << 56

    /// `bytes` as given (shared with the caller, not copied).
    init(_ bytes: [UInt8]) {
        word = Self.arrayMarker
        self.bytes = bytes
    }

    /// A copy of `bytes` (a blob column read in place, without making an array first): inline when it fits.
    init(copying bytes: UnsafeRawBufferPointer) {
        guard bytes.count <= Self.inlineCapacity else {
            word = Self.arrayMarker
            self.bytes = [UInt8](bytes)
            return
        }
        // Byte i in bits 8i..8i+7: `word.littleEndian` then lays them out in order, on any machine.
        var word = UInt64(bytes.count) << 56
        for (index, byte) in bytes.enumerated() {
            word |= UInt64(byte) << (8 * UInt64(index))
        }
        self.word = word
        self.bytes = []
    }

    private var isInline: Bool { word != Self.arrayMarker }

    var count: Int {
        isInline ? Int(word >> 56) : bytes.count
    }

    /// The bytes as an array (a new one for an inline payload; none is allocated when it is empty).
    var array: [UInt8] {
        guard isInline else { return bytes }
        let count = Int(word >> 56)
        guard count > 0 else { return [] }
        return Swift.withUnsafeBytes(of: word.littleEndian) { words in
            [UInt8](UnsafeRawBufferPointer(rebasing: words[..<count]))
        }
    }

    /// Calls `body` with the bytes, without making an array.
    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        guard isInline else { return try bytes.withUnsafeBytes(body) }
        let count = Int(word >> 56)
        return try Swift.withUnsafeBytes(of: word.littleEndian) { words in
            try body(UnsafeRawBufferPointer(rebasing: words[..<count]))
        }
    }

    static func == (lhs: PayloadBytes, rhs: PayloadBytes) -> Bool {
        if !lhs.isInline, !rhs.isInline { return lhs.bytes == rhs.bytes }
        guard lhs.count == rhs.count else { return false }
        return lhs.withUnsafeBytes { left in rhs.withUnsafeBytes { right in left.elementsEqual(right) } }
    }

    func hash(into hasher: inout Hasher) {
        withUnsafeBytes { bytes in
            hasher.combine(bytes.count)
            hasher.combine(bytes: bytes)
        }
    }
}
