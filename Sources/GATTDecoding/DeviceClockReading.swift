/// A value that reads the device's own clock (Current Time, Date Time): the `clock` role of a profile.
public protocol DeviceClockReading: GATTPayload {
    /// The device's wall-clock time, without a zone.
    var deviceClock: DateTime { get }
    /// True when ``deviceClock`` is UTC rather than the device's local wall-clock time (an Elapsed Time with
    /// its UTC flag); false, the default, for Date Time and Current Time.
    var deviceClockIsUTC: Bool { get }
}

extension DeviceClockReading {
    public var deviceClockIsUTC: Bool { false }
}

extension CurrentTime: DeviceClockReading {
    public var deviceClock: DateTime { dateTime }
}

extension DateTime: DeviceClockReading {
    public var deviceClock: DateTime { self }
}
