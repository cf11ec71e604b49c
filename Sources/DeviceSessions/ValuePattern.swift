public import BridgeFoundation

/// A test on the bytes of a value: a ``BytePattern`` prefix (`??` any byte) at an offset, an optional mask ANDed
/// with the bytes before comparing, and bounds on the length. The `select` of a frame and the
/// `manufacturerData` / `serviceDataPatterns` entries of a profile's `match` are written with it.
public struct ValuePattern: Sendable, Hashable, CustomStringConvertible {
    public var prefix: BytePattern
    /// ANDed with the value's bytes before they are compared with ``prefix`` (same length as the prefix).
    public var mask: [UInt8]?
    /// Where the prefix starts in the value.
    public var offset: Int
    public var minimumLength: Int?
    public var maximumLength: Int?

    public init(
        prefix: BytePattern = .any,
        mask: [UInt8]? = nil,
        offset: Int = 0,
        minimumLength: Int? = nil,
        maximumLength: Int? = nil
    ) {
        self.prefix = prefix
        self.mask = mask
        self.offset = offset
        self.minimumLength = minimumLength
        self.maximumLength = maximumLength
    }

    /// True when the pattern says nothing (every value matches).
    public var isUnconstrained: Bool {
        prefix.bytes.allSatisfy { $0 == nil } && minimumLength == nil && maximumLength == nil
    }

    /// Whether `value` passes every test given.
    public func matches(_ value: [UInt8]) -> Bool {
        if let minimumLength, value.count < minimumLength { return false }
        if let maximumLength, value.count > maximumLength { return false }
        // Subtraction, not `offset + count`: a pattern built in code may hold any offset.
        guard offset >= 0, prefix.bytes.count <= value.count, offset <= value.count - prefix.bytes.count else {
            return false
        }
        for (index, expected) in prefix.bytes.enumerated() {
            guard let expected else { continue }
            var byte = value[offset + index]
            if let mask { byte &= mask[index] }
            if byte != (mask.map { expected & $0[index] } ?? expected) { return false }
        }
        return true
    }

    public var description: String {
        var parts: [String] = []
        if !prefix.bytes.isEmpty { parts.append("prefix \(prefix)\(offset == 0 ? "" : " at \(offset)")") }
        if let mask { parts.append("mask \(Hex.string(mask))") }
        switch (minimumLength, maximumLength) {
        case (let low?, let high?): parts.append("length \(low)…\(high)")
        case (let low?, nil): parts.append("length ≥ \(low)")
        case (nil, let high?): parts.append("length ≤ \(high)")
        case (nil, nil): break
        }
        return parts.isEmpty ? "any value" : parts.joined(separator: ", ")
    }

    /// The keys a pattern is written with inside a larger object.
    public static let keys = ["prefix", "mask", "offset", "length"]

    /// Reads `prefix`, `mask`, `offset` and `length` (`{"min": 10, "max": 11}` or a whole number for an exact
    /// length) from an object whose other keys the caller checks.
    /// - Throws: ``JSONReadError`` at the offending member.
    public init(members: JSONObjectReader) throws(JSONReadError) {
        self.init()
        if let reader = members["prefix"] {
            let text = try reader.string()
            do {
                prefix = try BytePattern(text)
            } catch {
                throw reader.error("not a byte pattern: \(error.description)")
            }
        }
        if let reader = members["mask"] {
            let text = try reader.string()
            let bytes: [UInt8]
            do {
                bytes = try Hex.bytes(text)
            } catch {
                throw reader.error(error.description)
            }
            guard bytes.count == prefix.bytes.count else {
                throw reader.error("mask has \(bytes.count) bytes but the prefix has \(prefix.bytes.count)")
            }
            mask = bytes
        }
        if let reader = members["offset"] {
            offset = try reader.integer(in: ValueLimits.offsets)
        }
        if let reader = members["length"] {
            if case .object = reader.value {
                let bounds = try reader.object(allowing: ["min", "max"], ignoringPrefix: "_")
                minimumLength = try bounds["min"]?.integer(in: ValueLimits.lengths)
                maximumLength = try bounds["max"]?.integer(in: ValueLimits.lengths)
                if minimumLength == nil, maximumLength == nil { throw reader.error("give min, max or both") }
            } else {
                let exact = try reader.integer(in: ValueLimits.lengths)
                minimumLength = exact
                maximumLength = exact
            }
            if let low = minimumLength, let high = maximumLength, low > high {
                throw reader.error("min \(low) is greater than max \(high)")
            }
            if (minimumLength ?? 0) < 0 { throw reader.error("a length is never negative") }
        }
    }
}
