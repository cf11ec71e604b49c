public import BridgeCore
import BridgeFoundation
public import Foundation
import GATTDecoding

/// The bytes a session step writes, as a profile spells them: hex with placeholders.
///
/// `"01 03 01 {lastSequence+1:u16}"` (a variable plus one, as uint16 little-endian), `"{time:currentTime}"`
/// (the Current Time layout, 10 bytes), `"{time:dateTime}"` (Date Time, 7 bytes), `"{time:epoch}"` (seconds
/// since 1970 as uint32 little-endian; `{time:epochbe}` big-endian; `{time:epoch@2010-01-01T00:00:00Z}` /
/// `{time:epochbe@…}` seconds since a vendor's epoch, see ``VendorEpoch``), `"{consentCode}"` (a variable's bytes, or a number as u8), and
/// checksums over the bytes before them: `"{xor}"`, `"{sum8}"`, `"{crc8}"`, `"{crc16}"`, `"{crc16-modbus@1}"`
/// (from byte 1). Times are the bridge's wall-clock time in its zone.
public struct ByteTemplate: Sendable, Hashable, CustomStringConvertible {
    public enum TimeLayout: String, Sendable, Hashable, CaseIterable {
        /// Date Time (0x2A08): year u16, month, day, hours, minutes, seconds.
        case dateTime
        /// Current Time (0x2A2B): Date Time, day of week, 1/256 s, adjust reason (manual update).
        case currentTime
        /// Seconds since 1970-01-01T00:00:00Z, uint32 little-endian.
        case epoch
        /// Seconds since 2000-01-01T00:00:00 local time, uint32 little-endian (some vendor clocks).
        case epoch2000
        /// Seconds since 1970-01-01T00:00:00Z, uint32 big-endian.
        case epochbe
    }

    public enum Part: Sendable, Hashable {
        case bytes([UInt8])
        case variable(name: String, add: Int, format: SessionIntegerFormat?)
        case time(TimeLayout)
        /// Seconds since a vendor's epoch (`{time:epoch@2010-01-01T00:00:00Z}`, `{time:epochbe@…}`), uint32.
        case epochSince(VendorEpoch, bigEndian: Bool)
        /// A checksum over the bytes rendered so far, from byte `from`.
        case checksum(Checksum, from: Int)
    }

    public var parts: [Part]
    /// The text it was read from.
    public var description: String

    /// Reads a template.
    /// - Throws: ``SessionScriptError`` naming the placeholder at fault.
    public init(_ text: String) throws(SessionScriptError) {
        description = text
        parts = []
        var rest = Substring(text)
        while !rest.isEmpty {
            guard let open = rest.firstIndex(of: "{") else {
                parts.append(.bytes(try Self.hex(rest, in: text)))
                break
            }
            if open > rest.startIndex { parts.append(.bytes(try Self.hex(rest[..<open], in: text))) }
            guard let close = rest[open...].firstIndex(of: "}") else {
                throw SessionScriptError(text, "'{' without '}'")
            }
            parts.append(try Self.placeholder(String(rest[rest.index(after: open)..<close]), in: text))
            rest = rest[rest.index(after: close)...]
        }
    }

    public init(bytes: [UInt8]) {
        parts = [.bytes(bytes)]
        description = bytes.map { String($0, radix: 16).uppercased() }.joined(separator: " ")
    }

    private static func hex(_ text: Substring, in template: String) throws(SessionScriptError) -> [UInt8] {
        do {
            return try Hex.bytes(String(text))
        } catch {
            throw SessionScriptError(template, error.description)
        }
    }

    private static func placeholder(_ inner: String, in template: String) throws(SessionScriptError) -> Part {
        let body = inner.trimmingCharacters(in: .whitespaces)
        if body.hasPrefix("time:") {
            let layout = String(body.dropFirst(5))
            if let at = layout.firstIndex(of: "@") {
                let name = layout[..<at]
                let baseText = String(layout[layout.index(after: at)...])
                guard name == "epoch" || name == "epochbe" else {
                    throw SessionScriptError(template, "only epoch and epochbe take a base ('\(name)@…')")
                }
                guard let epoch = VendorEpoch(baseText) else {
                    throw SessionScriptError(
                        template,
                        "'\(baseText)' is not a date and time with its zone, e.g. 2010-01-01T00:00:00Z"
                    )
                }
                return .epochSince(epoch, bigEndian: name == "epochbe")
            }
            guard let time = TimeLayout(rawValue: layout) else {
                let known = TimeLayout.allCases.map(\.rawValue).joined(separator: ", ")
                throw SessionScriptError(template, "'\(layout)' is not a time layout (\(known))")
            }
            return .time(time)
        }
        let (name, from) = splitOffset(body)
        if let checksum = Checksum(rawValue: name) {
            guard let from, from >= 0 else {
                if from != nil { throw SessionScriptError(template, "'{\(inner)}': bad start byte") }
                return .checksum(checksum, from: 0)
            }
            return .checksum(checksum, from: from)
        }
        var variable = Substring(body)
        var format: SessionIntegerFormat?
        if let colon = variable.firstIndex(of: ":") {
            let formatText = String(variable[variable.index(after: colon)...])
            guard let parsed = SessionIntegerFormat(formatText) else {
                throw SessionScriptError(template, "'\(formatText)' is not an integer format (u8, u16, u32, u16be, …)")
            }
            format = parsed
            variable = variable[..<colon]
        }
        var add = 0
        if let sign = variable.firstIndex(where: { $0 == "+" || $0 == "-" }) {
            guard let amount = Int(variable[variable.index(after: sign)...]) else {
                throw SessionScriptError(template, "'{\(inner)}': expected a whole number after '\(variable[sign])'")
            }
            guard ValueLimits.addend.contains(amount) else {
                throw SessionScriptError(
                    template,
                    "'{\(inner)}': \(amount) is out of range (\(ValueLimits.addend.lowerBound)…\(ValueLimits.addend.upperBound))"
                )
            }
            add = variable[sign] == "+" ? amount : -amount
            variable = variable[..<sign]
        }
        guard SessionCondition.isName(variable) else {
            throw SessionScriptError(
                template,
                "'{\(inner)}' is neither a variable, a time (time:currentTime) nor a checksum "
                    + "(\(Checksum.allCases.map(\.rawValue).joined(separator: ", ")))"
            )
        }
        return .variable(name: String(variable), add: add, format: format)
    }

    private static func splitOffset(_ text: String) -> (String, Int?) {
        guard let at = text.firstIndex(of: "@") else { return (text, nil) }
        return (String(text[..<at]), Int(text[text.index(after: at)...]) ?? -1)
    }

    /// The bytes to write.
    /// - Parameters:
    ///   - variables: the session's variables.
    ///   - now: the bridge's wall-clock time.
    ///   - timeZone: the zone device clocks keep (the bridge's).
    /// - Throws: ``SessionScriptError`` when a variable is missing or does not fit its format.
    public func render(
        variables: SessionVariables,
        now: Date,
        timeZone: TimeZone
    ) throws(SessionScriptError) -> [UInt8] {
        var out: [UInt8] = []
        for part in parts {
            switch part {
            case .bytes(let bytes):
                out += bytes
            case .variable(let name, let add, let format):
                guard let value = variables[name] else {
                    throw SessionScriptError(description, "the variable '\(name)' has no value")
                }
                switch value {
                case .bytes(let bytes) where add == 0 && format == nil:
                    out += bytes
                case .bytes:
                    throw SessionScriptError(description, "'\(name)' holds bytes, not a number")
                case .integer(let integer):
                    let format = format ?? SessionIntegerFormat(width: 1)
                    let (sum, overflow) = integer.addingReportingOverflow(add)
                    guard !overflow, let bytes = format.bytes(sum) else {
                        let term = add == 0 ? "" : add > 0 ? "+\(add)" : "\(add)"
                        throw SessionScriptError(
                            description,
                            "\(name)\(term) (\(integer)\(term)) does not fit \(format)"
                        )
                    }
                    out += bytes
                }
            case .time(let layout):
                out += Self.time(layout, now: now, timeZone: timeZone)
            case .epochSince(let epoch, let bigEndian):
                let bytes = Self.uint32(epoch.seconds(at: now))
                out += bigEndian ? bytes.reversed() : bytes
            case .checksum(let checksum, let from):
                guard from <= out.count else {
                    throw SessionScriptError(description, "checksum from byte \(from) of \(out.count)")
                }
                out += checksum.bytes(of: out[from...])
            }
        }
        return out
    }

    /// Little-endian uint32 (saturating).
    static func uint32(_ seconds: Int64) -> [UInt8] {
        let value = UInt32(clamping: seconds)
        return [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
    }

    static func time(_ layout: TimeLayout, now: Date, timeZone: TimeZone) -> [UInt8] {
        switch layout {
        case .currentTime:
            return CurrentTime(date: now, in: timeZone).bytes
        case .dateTime:
            return Array(CurrentTime(date: now, in: timeZone).bytes.prefix(7))
        case .epoch:
            return uint32(VendorEpoch.unix.seconds(at: now))
        case .epochbe:
            return uint32(VendorEpoch.unix.seconds(at: now)).reversed()
        case .epoch2000:
            let local = now.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: now)) - 946_684_800
            return SessionIntegerFormat(width: 4).bytes(max(0, Int(local.rounded(.down)))) ?? [0, 0, 0, 0]
        }
    }
}
