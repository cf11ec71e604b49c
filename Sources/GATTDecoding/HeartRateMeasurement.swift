public import BridgeFoundation

/// Heart Rate Measurement (0x2A37), notified by a heart-rate sensor.
///
/// Flags uint8: bit 0 Heart Rate is uint16 (else uint8); bits 1–2 sensor contact (0 or 1 not supported,
/// 2 supported but not detected, 3 detected); bit 3 Energy Expended present; bit 4 RR-Interval(s) present;
/// bits 5–7 RFU (ignored). Energy Expended is in kJ since the last reset. RR-Intervals are in 1/1024 s and
/// take all remaining bytes in pairs: an odd trailing byte is a framing error.
/// - SeeAlso: Heart Rate Service 1.0, GATT Specification Supplement §3.Heart Rate Measurement;
///   `gatt-reference.md` §7.1.
public struct HeartRateMeasurement: GATTPayload, Hashable {
    public static let identifier = "heart-rate-measurement"
    public static let name = "Heart Rate Measurement"
    public static let source = PayloadSource.characteristic(.heartRateMeasurement)

    /// Whether the sensor can tell it touches the skin, and whether it does.
    public enum SensorContact: String, Sendable, Hashable, CaseIterable {
        case notSupported
        case notDetected
        case detected
    }

    public var flags: UInt8
    /// Beats per minute (read as uint8 or uint16 per flag bit 0).
    public var heartRate: UInt16
    /// Energy expended in kJ since the last reset; saturates at 0xFFFF.
    public var energyExpended: UInt16?
    /// RR-Intervals in 1/1024 s, oldest first; empty when flag bit 4 is clear.
    public var rrIntervals: RRIntervals

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        flags = try reader.read(UInt8.self, field: "Flags")
        heartRate =
            flags & 0x01 != 0
            ? try reader.read(UInt16.self, field: "Heart Rate")
            : UInt16(try reader.read(UInt8.self, field: "Heart Rate"))
        energyExpended = flags & 0x08 != 0 ? try reader.read(UInt16.self, field: "Energy Expended") : nil
        if flags & 0x10 != 0 {
            // At least one interval, then all remaining bytes in pairs.
            try reader.require(2, for: "RR-Interval")
            if reader.remaining % 2 != 0 {
                let oddOffset = reader.bytes.count - 1
                throw GATTDecodingError(
                    context: reader.context,
                    offset: oddOffset,
                    reason: .insufficientBytes(field: "RR-Interval", expected: 2, available: 1)
                )
            }
            let count = reader.remaining / 2
            rrIntervals = RRIntervals(bytes: reader.bytes, start: reader.offset, count: count)
            // Step over the intervals without copying them (they stay readable in place).
            for _ in 0..<count { _ = try reader.read(UInt16.self, field: "RR-Interval") }
        } else {
            rrIntervals = RRIntervals()
        }
    }

    /// Flag bit 0: Heart Rate was sent as uint16.
    public var isUInt16: Bool { flags & 0x01 != 0 }
    /// Flag bits 1–2. Bit 1 alone means "not supported": only bit 2 says the sensor can detect contact.
    public var sensorContact: SensorContact {
        switch flags & 0x06 {
        case 0x06: .detected
        case 0x04: .notDetected
        default: .notSupported
        }
    }
    /// Flag bits reserved for future use that were set (they are ignored).
    public var reservedFlags: UInt8 { flags & 0xE0 }

    /// Integers, RR intervals in milliseconds and fixed words: never a special value.
    public static var fieldsMayHoldSpecialValues: Bool { false }

    public var fields: JSONObject {
        var fields: JSONObject = [
            "flags": .int(Int(flags)),
            "heartRateFormat": .string(isUInt16 ? "uint16" : "uint8"),
            "sensorContact": .string(sensorContact.rawValue),
            "heartRate": .int(Int(heartRate)),
            "heartRateUnit": .string("bpm"),
        ]
        if let energyExpended {
            fields["energyExpended"] = .int(Int(energyExpended))
            fields["energyExpendedUnit"] = .string("kJ")
        }
        if flags & 0x10 != 0 {
            fields["rrIntervals"] = .array(rrIntervals.map { .double(RRIntervals.milliseconds($0)) })
            fields["rrIntervalUnit"] = .string("ms")
        }
        if reservedFlags != 0 { fields["reservedFlags"] = .int(Int(reservedFlags)) }
        return fields
    }
}

/// The RR-Intervals of one Heart Rate Measurement, in 1/1024 s, read in place from the payload
/// (no copy, no allocation).
public struct RRIntervals: RandomAccessCollection, Sendable, Hashable, CustomStringConvertible {
    private let bytes: [UInt8]
    private let start: Int
    public let count: Int

    init(bytes: [UInt8] = [], start: Int = 0, count: Int = 0) {
        self.bytes = bytes
        self.start = start
        self.count = count
    }

    /// Builds a list from raw 1/1024 s values (tests and encoders).
    public init(_ values: [UInt16]) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(values.count * 2)
        for value in values {
            bytes.append(UInt8(truncatingIfNeeded: value))
            bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        }
        self.init(bytes: bytes, start: 0, count: values.count)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    /// The raw interval at `position`, in 1/1024 s.
    public subscript(position: Int) -> UInt16 {
        precondition(position >= 0 && position < count, "RR-Interval index out of range")
        let offset = start + 2 * position
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    /// `raw` 1/1024 s in milliseconds, exactly (raw × 1000 / 1024).
    public static func milliseconds(_ raw: UInt16) -> Double {
        Double(raw) * 1000 / 1024
    }

    public static func == (lhs: RRIntervals, rhs: RRIntervals) -> Bool {
        lhs.elementsEqual(rhs)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for value in self { hasher.combine(value) }
    }

    public var description: String { "[" + map { String($0) }.joined(separator: ", ") + "]" }
}
