public import BridgeFoundation

/// Current Elapsed Time (0x2BF2) of the Elapsed Time Service, and the Elapsed Time structure GHS stamps health
/// observations with.
///
/// Layout (9 octets): Flags (uint8), Time Value (uint48: ticks of the resolution since 2000-01-01 00:00:00, or a
/// free-running counter), Time Sync Source Type (uint8), TZ/DST Offset (sint8, 15-minute units).
/// Flags: bit 0 tick counter (the value is not a time of day), bit 1 UTC (else local time), bits 2–3
/// resolution (0 one second, 1 100 ms, 2 1 ms, 3 100 µs), bit 4 TZ/DST offset used, bit 5 current timeline;
/// bits 6–7 RFU (ignored).
/// - SeeAlso: Elapsed Time Service 1.0; GATT Specification Supplement §3.Elapsed Time / Current Elapsed Time;
///   Generic Health Sensor Service 1.0 (Time Stamp field of a health observation).
public struct ElapsedTime: GATTPayload, Hashable {
    public static let identifier = "current-elapsed-time"
    public static let name = "Current Elapsed Time"
    public static let source = PayloadSource.characteristic(.currentElapsedTime)

    public var flags: UInt8
    /// Ticks of ``ticksPerSecond`` since the epoch 2000-01-01 00:00:00 (or since an arbitrary start for a tick
    /// counter).
    public var timeValue: UInt64
    public var timeSyncSourceType: UInt8
    /// Offset of local time from UTC in 15-minute units, when ``isTZDSTOffsetUsed``.
    public var tzDSTOffset: Int8

    public init(flags: UInt8, timeValue: UInt64, timeSyncSourceType: UInt8 = 0, tzDSTOffset: Int8 = 0) {
        self.flags = flags
        self.timeValue = timeValue & 0xFFFF_FFFF_FFFF
        self.timeSyncSourceType = timeSyncSourceType
        self.tzDSTOffset = tzDSTOffset
    }

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        flags = try reader.read(UInt8.self, field: "Flags")
        let low = UInt64(try reader.read(UInt32.self, field: "Time Value"))
        let high = UInt64(try reader.read(UInt16.self, field: "Time Value"))
        timeValue = low | high << 32
        timeSyncSourceType = try reader.read(UInt8.self, field: "Time Sync Source Type")
        tzDSTOffset = try reader.read(Int8.self, field: "TZ/DST Offset")
    }

    /// Flag bit 0: a free-running counter, not a time of day; it cannot place a reading in time by itself.
    public var isTickCounter: Bool { flags & 0x01 != 0 }
    /// Flag bit 1: the time is UTC; otherwise local wall-clock time.
    public var isUTC: Bool { flags & 0x02 != 0 }
    /// Flag bit 4: ``tzDSTOffset`` holds the local offset.
    public var isTZDSTOffsetUsed: Bool { flags & 0x10 != 0 }
    /// Flag bits 2–3.
    public var ticksPerSecond: UInt64 {
        switch (flags >> 2) & 0x03 {
        case 0: 1
        case 1: 10
        case 2: 1000
        default: 10_000
        }
    }

    /// Whole seconds since the epoch (2000-01-01 00:00:00).
    public var seconds: Int64 { Int64(timeValue / ticksPerSecond) }

    /// The time as a wall-clock Date Time (UTC when ``isUTC``, else the device's local time); nil for a tick
    /// counter.
    public var wallClock: DateTime? {
        guard !isTickCounter else { return nil }
        let start = DateTime(year: 2000, month: 1, day: 1, hours: 0, minutes: 0, seconds: 0)
        let moved = start.adding(minutes: Int(seconds / 60))
        return DateTime(
            year: moved.year,
            month: moved.month,
            day: moved.day,
            hours: moved.hours,
            minutes: moved.minutes,
            seconds: Int(seconds % 60)
        )
    }

    /// The 9 octets of the structure.
    public var bytes: [UInt8] {
        [flags] + (0..<6).map { UInt8(truncatingIfNeeded: timeValue >> ($0 * 8)) }
            + [timeSyncSourceType, UInt8(bitPattern: tzDSTOffset)]
    }

    public var fields: JSONObject {
        var fields: JSONObject = [
            "flags": .int(Int(flags)),
            "timeValue": .int(Int(timeValue)),
            "tickCounter": .bool(isTickCounter),
            "utc": .bool(isUTC),
            "ticksPerSecond": .int(Int(ticksPerSecond)),
            "timeSyncSourceType": .int(Int(timeSyncSourceType)),
        ]
        if let wallClock { fields["time"] = wallClock.field }
        if isTZDSTOffsetUsed { fields["tzDSTOffsetMinutes"] = .int(Int(tzDSTOffset) * 15) }
        return fields
    }

    public static var fieldsMayHoldSpecialValues: Bool { false }
}

// MARK: - DeviceClockReading

extension ElapsedTime: DeviceClockReading {
    /// The wall clock; an unknown Date Time for a tick counter (not a usable device time).
    public var deviceClock: DateTime {
        wallClock ?? DateTime(year: 0, month: 0, day: 0, hours: 0, minutes: 0, seconds: 0)
    }

    public var deviceClockIsUTC: Bool { isUTC }
}

extension ByteReader {
    /// Reads a 9-octet Elapsed Time structure.
    public mutating func readElapsedTime() throws(GATTDecodingError) -> ElapsedTime {
        try ElapsedTime(from: &self)
    }
}
