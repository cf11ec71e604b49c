/// The payload bytes a provenance box holds: up to ``inlineCapacity`` bytes inside the box itself, longer
/// payloads in an array.
///
/// A store read makes one provenance box per sample it returns (a day of heart rate: 86,398 of them), and a
/// `[UInt8]` payload would be a second heap allocation per sample, to make and later to free. Notifications and
/// weigh-ins are shorter than 24 bytes, so they live in the box; ``QuantitySample/rawPayload`` stays a `[UInt8]`,
/// made when it is asked for.
///
/// The representation is canonical (inline exactly when the bytes fit, unused inline bytes zero), so the
/// synthesised equality and hashing compare the bytes.
struct PayloadBytes: Hashable, Sendable {
    private enum Storage: Hashable, Sendable {
        /// `count` bytes at the start of the three words in memory order, the rest zero.
        case inline(count: UInt8, UInt64, UInt64, UInt64)
        case array([UInt8])
    }

    /// The longest payload held inline.
    static let inlineCapacity = 24

    private var storage: Storage

    /// No bytes (a manual entry).
    static let empty = PayloadBytes(storage: .inline(count: 0, 0, 0, 0))

    private init(storage: Storage) {
        self.storage = storage
    }

    init(_ bytes: [UInt8]) {
        if bytes.count > Self.inlineCapacity {
            storage = .array(bytes)
        } else {
            self = bytes.withUnsafeBytes { PayloadBytes(copying: $0) }
        }
    }

    /// A copy of `bytes` (a blob column read in place, without making an array first).
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
}
