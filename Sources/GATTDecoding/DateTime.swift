public import BridgeFoundation

/// Date Time (0x2A08): a device's local wall-clock time, with no time zone.
///
/// Zero in year, month or day means "not known". Ranges are validated here because lenient calendar
/// APIs would roll month 13 into the next year.
/// - SeeAlso: GATT Specification Supplement, Date Time; `gatt-reference.md` §3.
public struct DateTime: GATTPayload, Hashable, CustomStringConvertible {
    public static let identifier = "date-time"
    public static let name = "Date Time"
    public static let source = PayloadSource.characteristic(.dateTime)

    // Stored as the wire widths so a sample carrying a device time stays small.
    private var rawYear: UInt16
    private var rawMonth: UInt8
    private var rawDay: UInt8
    private var rawHours: UInt8
    private var rawMinutes: UInt8
    private var rawSeconds: UInt8

    public var year: Int {
        get { Int(rawYear) }
        set { rawYear = UInt16(clamping: newValue) }
    }
    public var month: Int {
        get { Int(rawMonth) }
        set { rawMonth = UInt8(clamping: newValue) }
    }
    public var day: Int {
        get { Int(rawDay) }
        set { rawDay = UInt8(clamping: newValue) }
    }
    public var hours: Int {
        get { Int(rawHours) }
        set { rawHours = UInt8(clamping: newValue) }
    }
    public var minutes: Int {
        get { Int(rawMinutes) }
        set { rawMinutes = UInt8(clamping: newValue) }
    }
    public var seconds: Int {
        get { Int(rawSeconds) }
        set { rawSeconds = UInt8(clamping: newValue) }
    }

    public init(year: Int, month: Int, day: Int, hours: Int, minutes: Int, seconds: Int) {
        rawYear = UInt16(clamping: year)
        rawMonth = UInt8(clamping: month)
        rawDay = UInt8(clamping: day)
        rawHours = UInt8(clamping: hours)
        rawMinutes = UInt8(clamping: minutes)
        rawSeconds = UInt8(clamping: seconds)
    }

    /// A date and time from six numbers (year, month, day, hours, minutes, seconds), checked as ``init(from:)``
    /// checks the wire form: year 1582–9999, month 1–12, a day of that month, 00:00:00–23:59:59; 0 in year, month
    /// or day is "not known" (see ``isUnknown``).
    /// - Returns: nil when there are not six numbers or one is out of its range.
    public init?(checking numbers: [Int]) {
        guard numbers.count == 6, numbers.allSatisfy({ (0...Int(UInt16.max)).contains($0) }) else { return nil }
        self.init(
            year: numbers[0],
            month: numbers[1],
            day: numbers[2],
            hours: numbers[3],
            minutes: numbers[4],
            seconds: numbers[5]
        )
        guard isInRange else { return nil }
    }

    /// Whether the fields are in their ranges (0 allowed in year, month and day).
    private var isInRange: Bool {
        (year == 0 || (1582...9999).contains(year)) && month <= 12 && day <= 31 && hours <= 23 && minutes <= 59
            && seconds <= 59
            && (year == 0 || month == 0 || day <= 28 || day <= CivilDate.daysInMonth(year: year, month: month))
    }

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        try reader.require(7, for: "Date Time")
        let start = reader.offset
        // Three reads instead of seven (the seven bytes are there: the reads cannot fail). Every weight, blood
        // pressure and glucose record carries this field, and its decoding was about a seventh of a Weight
        // Measurement's decode + normalise.
        let date = try reader.read(UInt32.self, field: "Year")
        let time = try reader.read(UInt16.self, field: "Hours")
        rawSeconds = try reader.read(UInt8.self, field: "Seconds")
        rawYear = UInt16(truncatingIfNeeded: date)
        rawMonth = UInt8(truncatingIfNeeded: date >> 16)
        rawDay = UInt8(truncatingIfNeeded: date >> 24)
        rawHours = UInt8(truncatingIfNeeded: time)
        rawMinutes = UInt8(truncatingIfNeeded: time >> 8)
        // One test for a valid time; only an invalid one goes through the checks that say which field is wrong.
        if !isInRange { try validate(offset: start, reader) }
    }

    /// Throws the error for the first field out of its range, in the order of the fields.
    @inline(never)
    private func validate(offset start: Int, _ reader: ByteReader) throws(GATTDecodingError) {
        try Self.check("Year", year, 1582...9999, unknownAllowed: true, offset: start, reader)
        try Self.check("Month", month, 1...12, unknownAllowed: true, offset: start + 2, reader)
        try Self.check("Day", day, 1...31, unknownAllowed: true, offset: start + 3, reader)
        if year != 0, month != 0, day > CivilDate.daysInMonth(year: year, month: month) {
            throw GATTDecodingError(
                context: reader.context,
                offset: start + 3,
                reason: .invalidValue(
                    field: "Day",
                    raw: UInt64(day),
                    expected: "1–\(CivilDate.daysInMonth(year: year, month: month)) for \(year)-\(month)"
                )
            )
        }
        try Self.check("Hours", hours, 0...23, unknownAllowed: false, offset: start + 4, reader)
        try Self.check("Minutes", minutes, 0...59, unknownAllowed: false, offset: start + 5, reader)
        try Self.check("Seconds", seconds, 0...59, unknownAllowed: false, offset: start + 6, reader)
    }

    /// Days in a month of the proleptic Gregorian calendar.
    private static func check(
        _ name: String,
        _ value: Int,
        _ range: ClosedRange<Int>,
        unknownAllowed: Bool,
        offset: Int,
        _ reader: ByteReader
    ) throws(GATTDecodingError) {
        guard !range.contains(value), !(unknownAllowed && value == 0) else { return }
        throw GATTDecodingError(
            context: reader.context,
            offset: offset,
            reason: .invalidValue(
                field: name,
                raw: UInt64(value),
                expected: "\(range.lowerBound)–\(range.upperBound)\(unknownAllowed ? " or 0 (unknown)" : "")"
            )
        )
    }

    /// True when the device does not know the date (year, month or day is 0).
    public var isUnknown: Bool { year == 0 || month == 0 || day == 0 }

    /// ISO-8601 wall-clock form without zone, e.g. `2024-03-15T07:30:00`.
    public var description: String {
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hours, 2)):\(pad(minutes, 2)):\(pad(seconds, 2))"
    }

    public var fields: JSONObject {
        isUnknown ? ["value": .string(description), "unknown": .bool(true)] : ["value": .string(description)]
    }

    /// The field form used inside measurements: the wall-clock string, or `"unknown"`.
    public var field: JSONValue { isUnknown ? .string("unknown") : .string(description) }
}

extension ByteReader {
    /// Reads a 7-octet Date Time.
    public mutating func readDateTime() throws(GATTDecodingError) -> DateTime {
        try DateTime(from: &self)
    }
}
