/// A cursor over a characteristic value that reads little-endian fields and throws, with the offset,
/// instead of reading out of bounds.
///
/// Bluetooth LE sends every multi-octet integer little-endian, so that is the default.
public struct ByteReader: Sendable {
    /// The whole payload being read.
    public let bytes: [UInt8]
    /// Offset of the next byte to read.
    public private(set) var offset: Int
    private let contextName: String?
    private let contextType: (any GATTPayload.Type)?

    /// The characteristic or format being decoded, used in error messages (built only when needed).
    public var context: String { contextName ?? contextType?.displayName ?? "payload" }

    public init(_ bytes: [UInt8], context: String) {
        self.bytes = bytes
        self.offset = 0
        self.contextName = context
        self.contextType = nil
    }

    /// A reader whose errors name `payload`'s characteristic.
    public init(_ bytes: [UInt8], for payload: any GATTPayload.Type) {
        self.bytes = bytes
        self.offset = 0
        self.contextName = nil
        self.contextType = payload
    }

    /// Bytes not read yet.
    public var remaining: Int { bytes.count - offset }

    /// Throws unless at least `count` more bytes are available for `field`.
    public func require(_ count: Int, for field: String) throws(GATTDecodingError) {
        guard remaining >= count else { throw shortage(count, for: field) }
    }

    /// The error for a payload that ends before `field`, built out of line so that the reads stay a few
    /// instructions each and inline into the decoders.
    @inline(never)
    private func shortage(_ count: Int, for field: String) -> GATTDecodingError {
        GATTDecodingError(
            context: context,
            offset: offset,
            reason: .insufficientBytes(field: field, expected: count, available: remaining)
        )
    }

    /// Reads an unsigned or signed integer of `T`'s width.
    @inline(__always)
    public mutating func read<T: FixedWidthInteger>(
        _: T.Type = T.self,
        field: String
    ) throws(GATTDecodingError) -> T {
        let size = MemoryLayout<T>.size
        // The same check as `require`, written here: going through `require` measured about half the Weight
        // Measurement decoding rate.
        guard remaining >= size else { throw shortage(size, for: field) }
        // Bounds were checked just above; read the little-endian value in one unaligned load.
        let value = bytes.withUnsafeBytes { raw in
            T(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: T.self))
        }
        offset += size
        return value
    }

    /// Reads a 24-bit unsigned integer (PLX Device and Sensor Status, for example).
    public mutating func readUInt24(field: String) throws(GATTDecodingError) -> UInt32 {
        try require(3, for: field)
        let value = UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
        offset += 3
        return value
    }

    /// Reads `count` raw bytes.
    public mutating func readBytes(_ count: Int, field: String) throws(GATTDecodingError) -> [UInt8] {
        try require(count, for: field)
        let slice = Array(bytes[offset..<offset + count])
        offset += count
        return slice
    }

    /// Reads everything that is left.
    public mutating func readRemaining() -> [UInt8] {
        let slice = Array(bytes[offset...])
        offset = bytes.count
        return slice
    }

    /// Builds an error at the current offset, for checks that are not about length.
    public func error(_ reason: GATTDecodingError.Reason) -> GATTDecodingError {
        GATTDecodingError(context: context, offset: offset, reason: reason)
    }
}
