/// A value that reads the device's own clock (Current Time, Date Time): the `clock` role of a profile.
public protocol DeviceClockReading: GATTPayload {
    /// The device's wall-clock time, without a zone.
    var deviceClock: DateTime { get }
}

extension CurrentTime: DeviceClockReading {
    public var deviceClock: DateTime { dateTime }
}

extension DateTime: DeviceClockReading {
    public var deviceClock: DateTime { self }
}
