public import BridgeCore

/// Takes a number (or bytes) out of a value into a session variable: `"u16@1"` is the uint16 at byte 1 (a
/// glucose record's sequence number), `"bytes@2"` every byte from byte 2.
public struct SessionCapture: Sendable, Hashable, CustomStringConvertible {
    public enum Field: Sendable, Hashable {
        case integer(SessionIntegerFormat, offset: Int)
        case bytes(offset: Int)
    }

    /// How a capture that runs on every value of a characteristic combines with the value it had.
    public enum Keep: String, Sendable, Hashable, CaseIterable {
        /// The newest value.
        case last
        /// The largest number seen (a download's highest sequence number).
        case max
    }

    public var variable: String
    public var field: Field
    public var keep: Keep

    public init(variable: String, field: Field, keep: Keep = .last) {
        self.variable = variable
        self.field = field
        self.keep = keep
    }

    /// Reads `"u16@1"` / `"bytes@2"` for `variable`.
    public init(variable: String, spec: String, keep: Keep = .last) throws(SessionScriptError) {
        guard SessionCondition.isName(Substring(variable)) else {
            throw SessionScriptError(variable, "not a variable name (letters, digits, '_')")
        }
        let pieces = spec.split(separator: "@", omittingEmptySubsequences: false)
        guard pieces.count == 2, !pieces[1].isEmpty, pieces[1].allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw SessionScriptError(spec, "expected FORMAT@OFFSET, e.g. u16@1 or bytes@2")
        }
        guard let offset = Int(pieces[1]), ValueLimits.offsets.contains(offset) else {
            throw SessionScriptError(
                spec,
                "offset \(pieces[1]) is out of range (\(ValueLimits.offsets.lowerBound)…\(ValueLimits.offsets.upperBound))"
            )
        }
        if pieces[0] == "bytes" {
            field = .bytes(offset: offset)
        } else if let format = SessionIntegerFormat(String(pieces[0])) {
            field = .integer(format, offset: offset)
        } else {
            throw SessionScriptError(spec, "'\(pieces[0])' is not u8, u16, u32, u16be, u32be or bytes")
        }
        self.variable = variable
        self.keep = keep
    }

    public var description: String {
        switch field {
        case .integer(let format, let offset): "\(variable) = \(format)@\(offset)"
        case .bytes(let offset): "\(variable) = bytes@\(offset)"
        }
    }

    /// The captured value, or nil when the value is too short.
    public func value(in bytes: [UInt8]) -> SessionValue? {
        switch field {
        case .integer(let format, let offset):
            return format.read(bytes, at: offset).map(SessionValue.integer)
        case .bytes(let offset):
            return offset <= bytes.count ? .bytes(Array(bytes[offset...])) : nil
        }
    }

    /// Applies the capture to `variables`.
    public func apply(to variables: inout SessionVariables, from bytes: [UInt8]) {
        guard let new = value(in: bytes) else { return }
        if keep == .max, let old = variables[variable]?.integer, let candidate = new.integer, candidate <= old {
            return
        }
        variables[variable] = new
    }
}
