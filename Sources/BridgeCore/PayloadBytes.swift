/// The payload bytes a provenance box holds: the caller's array as it was given, or, for bytes copied from
/// elsewhere (a store read's blob column), up to ``inlineCapacity`` bytes inside the box itself.
///
/// A store read makes one provenance box per sample it returns (a day of heart rate: 86,398 of them), and a
/// `[UInt8]` payload would be a second heap allocation per sample, to make and later to free. Notifications and
/// weigh-ins are shorter than 24 bytes, so those live in the box; ``QuantitySample/rawPayload`` stays a
/// `[UInt8]`, made when it is asked for. A payload given as an array (the pipeline's, a caller's) is kept as that
/// array, shared and not copied: the pipeline and the store's writes read it back for free, as before.
///
/// Equal and hashed by the bytes, however they are held.
struct PayloadBytes: Hashable, Sendable {
    private enum Storage: Sendable {
        /// `count` bytes at the start of the three words in memory order, the rest zero.
        case inline(count: UInt8, UInt64, UInt64, UInt64)
        case array([UInt8])
    }

    /// The longest payload ``init(copying:)`` holds inline.
    static let inlineCapacity = 24

    private var storage: Storage

    /// `bytes` as given (shared with the caller, not copied).
    init(_ bytes: [UInt8]) {
        storage = .array(bytes)
    }

    /// A copy of `bytes` (a blob column read in place, without making an array first): inline when it fits.
    init(copying bytes: UnsafeRawBufferPointer) {
        guard bytes.count <= Self.inlineCapacity else {
            storage = .array([UInt8](bytes))
            return
        }
        var words: (UInt64, UInt64, UInt64) = (0, 0, 0)
        if bytes.count > 0 {
            withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: bytes) }
        }
        storage = .inline(count: UInt8(bytes.count), words.0, words.1, words.2)
    }

    var count: Int {
        switch storage {
        case .inline(let count, _, _, _): Int(count)
        case .array(let bytes): bytes.count
        }
    }

    /// The bytes as an array (a new one for an inline payload; none is allocated when it is empty).
    var array: [UInt8] {
        switch storage {
        case .inline(let count, let first, let second, let third):
            guard count > 0 else { return [] }
            return Swift.withUnsafeBytes(of: (first, second, third)) { words in
                [UInt8](UnsafeRawBufferPointer(rebasing: words[..<Int(count)]))
            }
        case .array(let bytes):
            return bytes
        }
    }

    /// Calls `body` with the bytes, without making an array.
    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        switch storage {
        case .inline(let count, let first, let second, let third):
            return try Swift.withUnsafeBytes(of: (first, second, third)) { words in
                try body(UnsafeRawBufferPointer(rebasing: words[..<Int(count)]))
            }
        case .array(let bytes):
            return try bytes.withUnsafeBytes(body)
        }
    }

    static func == (lhs: PayloadBytes, rhs: PayloadBytes) -> Bool {
        if case .array(let left) = lhs.storage, case .array(let right) = rhs.storage { return left == right }
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
