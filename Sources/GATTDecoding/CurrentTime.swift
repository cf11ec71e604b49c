public import BridgeFoundation

/// Current Time (0x2A2B) of the Current Time Service: the device clock, readable and (on scales and meters
/// that accept it) writable to set the clock.
///
/// Layout (10 octets): Date Time (7), Day of Week (uint8, 1 Monday … 7 Sunday, 0 unknown, 8–255 RFU),
/// Fractions256 (uint8, 1/256 s), Adjust Reason (uint8: bit 0 manual time update, bit 1 external reference
/// time update, bit 2 change of time zone, bit 3 change of DST; bits 4–7 RFU, ignored). ``bytes`` encodes a
/// value for writing.
/// - SeeAlso: Current Time Service 1.1, GATT Specification Supplement §3.Current Time; `gatt-reference.md` §3.
public struct CurrentTime: GATTPayload, Hashable {
    public static let identifier = "current-time"
    public static let name = "Current Time"
    public static let source = PayloadSource.characteristic(.currentTime)

    /// Adjust Reason bits.
    public struct AdjustReason: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let manualTimeUpdate = AdjustReason(rawValue: 1 << 0)
        public static let externalReferenceTimeUpdate = AdjustReason(rawValue: 1 << 1)
        public static let changeOfTimeZone = AdjustReason(rawValue: 1 << 2)
        public static let changeOfDST = AdjustReason(rawValue: 1 << 3)

        public static let bitNames: [String?] = [
            "manual time update", "external reference time update", "change of time zone", "change of DST",
        ]
    }

    public var dateTime: DateTime
    /// 1 Monday … 7 Sunday; 0 unknown.
    public var dayOfWeek: UInt8
    /// Fractions of a second in 1/256 s.
    public var fractions256: UInt8
    public var adjustReason: AdjustReason

    public init(dateTime: DateTime, dayOfWeek: UInt8, fractions256: UInt8 = 0, adjustReason: AdjustReason = []) {
        self.dateTime = dateTime
        self.dayOfWeek = dayOfWeek
        self.fractions256 = fractions256
        self.adjustReason = adjustReason
    }

    /// A value for `dateTime` with the day of the week computed from the date.
    public init(dateTime: DateTime, fractions256: UInt8 = 0, adjustReason: AdjustReason = []) {
        self.init(
            dateTime: dateTime,
            dayOfWeek: UInt8(dateTime.dayOfWeek ?? 0),
            fractions256: fractions256,
            adjustReason: adjustReason
        )
    }

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        dateTime = try reader.readDateTime()
        dayOfWeek = try reader.read(UInt8.self, field: "Day of Week")
        fractions256 = try reader.read(UInt8.self, field: "Fractions256")
        adjustReason = AdjustReason(rawValue: try reader.read(UInt8.self, field: "Adjust Reason"))
    }

    /// The 10 octets to write to the characteristic.
    public var bytes: [UInt8] { dateTime.bytes + [dayOfWeek, fractions256, adjustReason.rawValue] }

    public var dayOfWeekName: String {
        dayOfWeek == 0
            ? "unknown"
            : BitNames.code(
                Int(dayOfWeek),
                [
                    1: "Monday", 2: "Tuesday", 3: "Wednesday", 4: "Thursday", 5: "Friday", 6: "Saturday", 7: "Sunday",
                ]
            )
    }

    public var fields: JSONObject {
        [
            "dateTime": dateTime.field,
            "dayOfWeek": .int(Int(dayOfWeek)),
            "dayOfWeekName": .string(dayOfWeekName),
            "fractions256": .int(Int(fractions256)),
            "adjustReason": .int(Int(adjustReason.rawValue)),
            "adjustReasonBits": BitNames.field(UInt32(adjustReason.rawValue), AdjustReason.bitNames),
        ]
    }
}
