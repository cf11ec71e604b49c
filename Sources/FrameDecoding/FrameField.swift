import BridgeCore
public import BridgeFoundation
public import DeviceSessions
import Foundation
import GATTDecoding

/// One field of a frame: where its bytes are, how they are read, and what special raw values mean.
public struct FrameField: Sendable, Hashable {
    public var name: String
    /// Byte offset; negative counts from the end (-1 is the last byte).
    public var at: Int
    public var type: FrameFieldType
    /// Bytes read by the `bytes` type.
    public var length: Int?
    /// Inclusive bit range of the integer read (bit 0 the least significant), e.g. `"5"` or `"0-11"`.
    public var bits: ClosedRange<Int>?
    public var scale: Double = 1
    public var offset: Double = 0
    /// Raw values meaning "not measured".
    public var absent: Set<Int> = []
    /// Raw values meaning below the device's range (LO).
    public var low: Set<Int> = []
    /// Raw values meaning above the device's range (HI).
    public var high: Set<Int> = []
    /// Raw integer → a text (a unit, a mode) or a number.
    public var lookup: [Int: FrameFieldValue] = [:]
    /// What an `epoch32le`/`epoch32be` field counts its seconds from (`"epoch"`; default 1970-01-01T00:00:00Z).
    public var epoch: VendorEpoch?

    public init(name: String, at: Int, type: FrameFieldType) {
        self.name = name
        self.at = at
        self.type = type
    }

    static let keys = [
        "name", "at", "type", "length", "bits", "scale", "offset", "absent", "outOfRange", "lookup", "epoch",
    ]

    /// Reads a field object.
    /// - Throws: ``JSONReadError`` at the offending member.
    public init(json reader: JSONReader) throws(JSONReadError) {
        let members = try reader.object(allowing: Self.keys, ignoringPrefix: "_")
        let nameReader = try members.required("name")
        name = try nameReader.string()
        guard Frame.isName(name) else {
            throw nameReader.error("'\(name)' must be letters, digits and _, not starting with a digit")
        }
        at = try members.required("at").integer(in: ValueLimits.signedOffsets)
        let typeReader = try members.required("type")
        let typeText = try typeReader.string()
        guard let type = FrameFieldType(rawValue: typeText) else {
            throw typeReader.error(
                "'\(typeText)' is not a field type (\(FrameFieldType.allCases.map(\.rawValue).joined(separator: ", ")))"
            )
        }
        self.type = type
        if let lengthReader = members["length"] {
            guard type == .bytes else { throw lengthReader.error("only a bytes field has a length") }
            let length = try lengthReader.integer(in: ValueLimits.lengths)
            guard length > 0 else { throw lengthReader.error("expected a length ≥ 1") }
            self.length = length
        } else if type == .bytes {
            throw members.error("length", "a bytes field needs its length")
        }
        if let epochReader = members["epoch"] {
            guard type == .epoch32le || type == .epoch32be else {
                throw epochReader.error("epoch applies to epoch32le/epoch32be fields, not \(type.rawValue)")
            }
            let text = try epochReader.string()
            guard let epoch = VendorEpoch(text) else {
                throw epochReader.error(
                    "'\(text)' is not a date and time with its zone, e.g. \"2010-01-01T00:00:00Z\" or "
                        + "\"2000-01-01T00:00:00+08:00\""
                )
            }
            self.epoch = epoch
        }
        for key in ["bits", "scale", "offset", "absent", "outOfRange", "lookup"] where members[key] != nil {
            if !type.isInteger, !(type == .sfloat || type == .float) || ["bits", "lookup"].contains(key) {
                throw members.error(key, "\(key) applies to integer fields, not \(type.rawValue)")
            }
        }
        if let bitsReader = members["bits"] {
            let text = try bitsReader.string()
            let parts = text.split(separator: "-", omittingEmptySubsequences: false).map {
                Int($0.trimmingCharacters(in: .whitespaces))
            }
            let widthBits = (type.width ?? 0) * 8
            guard parts.count <= 2, let first = parts.first ?? nil, let last = parts.last ?? nil, first <= last,
                first >= 0, last < widthBits
            else {
                throw bitsReader.error("expected a bit \"N\" or a range \"N-M\" within the field's \(widthBits) bits")
            }
            bits = first...last
        }
        if let scaleReader = members["scale"] {
            scale = try scaleReader.number(magnitudeAtMost: ValueLimits.magnitude)
            guard scale != 0 else { throw scaleReader.error("a scale of 0 makes every value 0") }
        }
        offset = try members["offset"]?.number(magnitudeAtMost: ValueLimits.magnitude) ?? 0
        absent = try Self.integers(members["absent"])
        if let range = members["outOfRange"] {
            let limits = try range.object(allowing: ["low", "high"], ignoringPrefix: "_")
            low = try Self.integers(limits["low"])
            high = try Self.integers(limits["high"])
        }
        if let lookupReader = members["lookup"] {
            let table = try lookupReader.object()
            for key in table.keys where !key.hasPrefix("_") {
                guard let raw = Int(key) else {
                    throw table.error(key, "lookup keys are raw integers written as text, e.g. \"0\"")
                }
                let entry = try table.required(key)
                switch entry.value {
                case .string(let text): lookup[raw] = .text(text)
                case .int, .double: lookup[raw] = .number(try entry.number())
                default: throw entry.error("expected a text or a number, got \(entry.kind)")
                }
            }
        }
    }

    static func integers(_ reader: JSONReader?) throws(JSONReadError) -> Set<Int> {
        try reader?.integers() ?? []
    }

    /// Bytes this field reads.
    public var width: Int { type.width ?? length ?? 0 }

    /// The smallest value length that holds the field (for lint and fixtures).
    public var minimumValueLength: Int {
        guard at >= 0 else { return at == .min ? .max : -at }
        let (sum, overflow) = at.addingReportingOverflow(width)
        return overflow ? .max : sum
    }

    /// Reads the field from a value.
    /// - Throws: ``FrameDecodingError`` when the field lies outside the value or its time is not a date.
    public func read(_ bytes: [UInt8], frame: String) throws(FrameDecodingError) -> DecodedField {
        // Overflow-reporting arithmetic: a field built in code may hold any offset (the loader bounds it).
        let (start, overflow) = at >= 0 ? (at, false) : bytes.count.addingReportingOverflow(at)
        guard !overflow, start >= 0, width <= bytes.count, start <= bytes.count - width else {
            throw FrameDecodingError(
                frame: frame,
                message: "field \(name) (\(type.rawValue) at \(at)) needs \(width) byte(s) at offset \(start) "
                    + "but the value has \(bytes.count)"
            )
        }
        let slice = bytes[start..<start + width]
        switch type {
        case .bytes:
            return DecodedField(name: name, value: .bytes(Array(slice)))
        case .sfloat, .float:
            let raw = Int(type.unsigned(slice))
            let special: IEEE11073Special?
            let number: Double?
            if type == .sfloat {
                let value = SFloat(rawValue: UInt16(raw))
                (special, number) = (value.special, value.doubleValue)
            } else {
                let value = MedFloat(rawValue: UInt32(raw))
                (special, number) = (value.special, value.doubleValue)
            }
            if let listed = self.special(raw) { return listed }
            if let special, let comparator = ValueComparator(special) {
                return DecodedField(name: name, raw: raw, value: nil, comparator: comparator)
            }
            guard let number else {
                return DecodedField(
                    name: name,
                    raw: raw,
                    value: nil,
                    note: "\(name) is \(special.map { "\($0)" } ?? "not a number") (not measured)"
                )
            }
            return DecodedField(name: name, raw: raw, value: .number(try scaledNumber(number, frame: frame)))
        case .dateTime:
            do {
                let time = try DateTime.decode(Array(slice))
                return DecodedField(
                    name: name,
                    value: time.isUnknown ? nil : .time(time),
                    note: time.isUnknown ? "\(name): the device did not know the date" : nil
                )
            } catch {
                throw FrameDecodingError(frame: frame, message: "field \(name): \(error.description)")
            }
        case .epoch32le, .epoch32be:
            let seconds = type.unsigned(slice)
            return DecodedField(
                name: name,
                raw: Int(seconds),
                value: .instant((epoch ?? .unix).instant(Int64(seconds)))
            )
        case .epoch2000le, .epoch2000be:
            let seconds = Int64(type.unsigned(slice))
            let day = seconds / 86_400 + CivilDate.dayNumber(year: 2000, month: 1, day: 1)
            let (year, month, dayOfMonth) = CivilDate.civil(dayNumber: day)
            let second = Int(seconds % 86_400)
            return DecodedField(
                name: name,
                raw: Int(seconds),
                value: .time(
                    DateTime(
                        year: year,
                        month: month,
                        day: dayOfMonth,
                        hours: second / 3600,
                        minutes: second / 60 % 60,
                        seconds: second % 60
                    )
                )
            )
        case .bcdDateTime, .ymdhms:
            var parts: [Int] = []
            for byte in slice {
                if type == .ymdhms {
                    parts.append(Int(byte))
                } else {
                    guard byte >> 4 < 10, byte & 0x0F < 10 else {
                        throw FrameDecodingError(
                            frame: frame,
                            message: "field \(name): byte \(Hex.string([byte])) is not BCD"
                        )
                    }
                    parts.append(Int(byte >> 4) * 10 + Int(byte & 0x0F))
                }
            }
            if parts.allSatisfy({ $0 == 0 }) {
                return DecodedField(name: name, value: nil, note: "\(name): the device did not know the date")
            }
            parts[0] += 2000
            guard let time = DateTime(checking: parts), !time.isUnknown else {
                let time = DateTime(
                    year: parts[0],
                    month: parts[1],
                    day: parts[2],
                    hours: parts[3],
                    minutes: parts[4],
                    seconds: parts[5]
                )
                throw FrameDecodingError(frame: frame, message: "field \(name): \(time) is not a valid date and time")
            }
            return DecodedField(name: name, value: .time(time))
        default:
            guard var raw = type.integer(slice) else {
                throw FrameDecodingError(
                    frame: frame,
                    message: "field \(name): byte \(Hex.string(Array(slice))) is not BCD"
                )
            }
            if let bits {
                let width = bits.count
                raw = (raw >> bits.lowerBound) & (width >= 63 ? Int.max : (1 << width) - 1)
            }
            if let special = special(raw) { return special }
            if let looked = lookup[raw] {
                if case .number(let number) = looked {
                    return DecodedField(name: name, raw: raw, value: .number(number))
                }
                return DecodedField(name: name, raw: raw, value: looked)
            }
            return DecodedField(name: name, raw: raw, value: .number(try scaledNumber(Double(raw), frame: frame)))
        }
    }

    /// raw × scale + offset, refused when it is not finite (a FLOAT near its limit times a large scale): the value
    /// is then refused, not the samples of other values.
    /// - Throws: ``FrameDecodingError`` naming the field, the raw value, the scale and the offset.
    func scaledNumber(_ raw: Double, frame: String) throws(FrameDecodingError) -> Double {
        let value = ScaledValue.of(raw, scale: scale, offset: offset)
        guard value.isFinite else {
            throw FrameDecodingError(
                frame: frame,
                message: "field \(name): \(raw) × \(scale) + \(offset) is \(value), not a finite number"
            )
        }
        return value
    }

    /// The field for a raw value listed in `absent` or `outOfRange`, nil for an ordinary value.
    func special(_ raw: Int) -> DecodedField? {
        if absent.contains(raw) {
            return DecodedField(name: name, raw: raw, value: nil, note: "\(name) is \(raw) (not measured)")
        }
        if low.contains(raw) { return DecodedField(name: name, raw: raw, value: nil, comparator: .lessThan) }
        if high.contains(raw) { return DecodedField(name: name, raw: raw, value: nil, comparator: .greaterThan) }
        return nil
    }
}
