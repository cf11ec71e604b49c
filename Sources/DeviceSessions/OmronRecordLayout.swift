public import BridgeCore
import BridgeFoundation
public import GATTDecoding

/// How one record of an Omron memory map is laid out: named fields read by byte offset, integer type and bit
/// range (the frame-language field form: `at`, `type`, `bits` counted from the least significant bit), the
/// record's time from the fields `year` `month` `day` `hour` `minute` `second`, and which fields become
/// samples, which are status flags and which measures without a quantity type ride on a sample's metadata.
public struct OmronRecordLayout: Sendable, Hashable {
    public struct Field: Sendable, Hashable {
        public enum Kind: String, Sendable, Hashable, CaseIterable {
            case u8, u16le, u16be, u32le, u32be

            var width: Int {
                switch self {
                case .u8: 1
                case .u16le, .u16be: 2
                case .u32le, .u32be: 4
                }
            }
        }

        public var name: String
        /// Byte offset in the record.
        public var at: Int
        public var kind: Kind
        /// Inclusive bit range of the integer read (bit 0 = least significant); nil for all of it.
        public var bits: ClosedRange<Int>?
        /// Added to the raw value (the cuffs store systolic − 25 and year − 2000).
        public var add: Int
        /// The value is limited to this (some cuffs store seconds up to 63).
        public var max: Int?
        /// A sample's value is the field's value × `scale` (the HBF scales store weight in 50 g, fat in 0.1 %).
        public var scale: Double
        /// Values meaning "not measured": a sample made from the field is then left out.
        public var absent: Set<Int>

        public init(
            name: String,
            at: Int,
            kind: Kind,
            bits: ClosedRange<Int>? = nil,
            add: Int = 0,
            max: Int? = nil,
            scale: Double = 1,
            absent: Set<Int> = []
        ) {
            self.name = name
            self.at = at
            self.kind = kind
            self.bits = bits
            self.add = add
            self.max = max
            self.scale = scale
            self.absent = absent
        }

        /// The field's value in `record`, nil when the record is too short (or `add` overflows: the loader bounds
        /// it, a layout built in code may not).
        public func value(in record: [UInt8]) -> Int? {
            guard at >= 0, kind.width <= record.count, at <= record.count - kind.width else { return nil }
            var raw = 0
            for index in 0..<kind.width {
                let byte = Int(record[at + index])
                switch kind {
                case .u8, .u16be, .u32be: raw = raw << 8 | byte
                case .u16le, .u32le: raw |= byte << (8 * index)
                }
            }
            if let bits { raw = (raw >> bits.lowerBound) & ((1 << bits.count) - 1) }
            let (value, overflow) = raw.addingReportingOverflow(add)
            if overflow { return nil }
            if let max { return Swift.min(value, max) }
            return value
        }
    }

    /// A quantity sample made from a field.
    public struct Sample: Sendable, Hashable {
        public var type: QuantityType
        public var field: String
        public var unit: HealthUnit

        public init(type: QuantityType, field: String, unit: HealthUnit) {
            self.type = type
            self.field = field
            self.unit = unit
        }
    }

    /// A one-bit field that names a measurement condition when set (`irregularPulse`, `bodyMovement`).
    public struct Flag: Sendable, Hashable {
        public var field: String
        public var condition: String

        public init(field: String, condition: String) {
            self.field = field
            self.condition = condition
        }
    }

    /// A measure with no quantity type (an HBF scale's skeletal muscle %, visceral fat level, body age): its
    /// scaled value is kept in the metadata of the record's `on` sample under `key`, or of the record's first
    /// sample when that one was not measured, so it is never lost.
    public struct Extra: Sendable, Hashable {
        public var key: String
        public var field: String
        public var on: QuantityType

        public init(key: String, field: String, on: QuantityType) {
            self.key = key
            self.field = field
            self.on = on
        }
    }

    public var fields: [Field]
    public var samples: [Sample]
    public var flags: [Flag]
    public var extras: [Extra]

    public init(fields: [Field], samples: [Sample], flags: [Flag] = [], extras: [Extra] = []) {
        self.fields = fields
        self.samples = samples
        self.flags = flags
        self.extras = extras
    }

    /// The scaled value of `field` in `record` as metadata text (`31.2`, `7.5`, `34`); nil when it is missing or
    /// holds an `absent` value.
    public func metadataValue(of field: String, in record: OmronRecord) -> String? {
        guard let raw = record.values[field], let definition = fields.first(where: { $0.name == field }),
            !definition.absent.contains(raw)
        else { return nil }
        let value = ScaledValue.of(Double(raw), scale: definition.scale)
        return value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// The extras of `record` for the sample of `type`, given the types of the samples the record made.
    public func extras(for type: QuantityType, made: [QuantityType], in record: OmronRecord) -> [String: String] {
        var out: [String: String] = [:]
        for extra in extras {
            let target = made.contains(extra.on) ? extra.on : made.first
            guard target == type, let value = metadataValue(of: extra.field, in: record) else { continue }
            out[extra.key] = value
        }
        return out
    }

    /// The value of `sample` in `record`, scaled; nil when its field is missing or holds an `absent` value.
    public func value(of sample: Sample, in record: OmronRecord) -> Double? {
        guard let raw = record.values[sample.field] else { return nil }
        guard let field = fields.first(where: { $0.name == sample.field }) else { return Double(raw) }
        if field.absent.contains(raw) { return nil }
        return ScaledValue.of(Double(raw), scale: field.scale)
    }

    /// The fields a record's time is read from.
    public static let timeFields = ["year", "month", "day", "hour", "minute", "second"]

    /// Field names used but not defined, or nil when the layout is complete.
    public var problem: String? {
        let names = Set(fields.map(\.name))
        let missing = (Self.timeFields + samples.map(\.field) + flags.map(\.field) + extras.map(\.field)).filter {
            !names.contains($0)
        }
        guard missing.isEmpty else {
            var seen: Set<String> = []
            let unique = missing.filter { seen.insert($0).inserted }
            return "fields used but not defined: \(unique.joined(separator: ", "))"
        }
        if samples.isEmpty { return "no samples: name at least one field that becomes a sample" }
        return nil
    }

    /// The largest byte a field reads, plus one: a record must be at least this long.
    public var minimumRecordSize: Int { fields.map { $0.at + $0.kind.width }.max() ?? 0 }

    /// Reads a record: nil for an empty slot (every byte 0xFF, as the cuffs leave unwritten slots, or every byte 0).
    /// - Throws: ``OmronRecordError`` when the record is too short or its time is not a date.
    public func read(_ record: [UInt8]) throws(OmronRecordError) -> OmronRecord? {
        if record.allSatisfy({ $0 == 0xFF }) || record.allSatisfy({ $0 == 0 }) { return nil }
        var values: [String: Int] = [:]
        for field in fields {
            guard let value = field.value(in: record) else {
                throw .tooShort(expected: minimumRecordSize, actual: record.count)
            }
            values[field.name] = value
        }
        let time = Self.timeFields.map { values[$0] ?? -1 }
        guard let dateTime = DateTime(checking: time), !dateTime.isUnknown, (2000...2099).contains(dateTime.year)
        else {
            throw .invalidTime(time.map(String.init).joined(separator: " "))
        }
        let conditions = flags.filter { (values[$0.field] ?? 0) != 0 }.map(\.condition)
        return OmronRecord(values: values, time: dateTime, conditions: conditions)
    }
}

/// One decoded record: its field values, its time (the device's local wall clock) and its conditions.
public struct OmronRecord: Sendable, Hashable {
    public var values: [String: Int]
    public var time: DateTime
    public var conditions: [String]

    public init(values: [String: Int], time: DateTime, conditions: [String]) {
        self.values = values
        self.time = time
        self.conditions = conditions
    }
}

/// Why a record could not be read.
public enum OmronRecordError: Error, Sendable, Hashable, CustomStringConvertible {
    case tooShort(expected: Int, actual: Int)
    /// The time fields (year month day hour minute second) are not a date.
    case invalidTime(String)

    public var description: String {
        switch self {
        case .tooShort(let expected, let actual): "record of \(actual) bytes, the layout reads \(expected)"
        case .invalidTime(let fields): "its time fields (year month day hour minute second: \(fields)) are not a date"
        }
    }
}
