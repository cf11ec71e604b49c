public import BridgeCore
public import Foundation

/// Tunables of the ingestion pipeline.
public struct PipelineConfiguration: Sendable {
    /// The zone device clocks are read in (zone-less Date Time stamps).
    public var timeZone: TimeZone
    /// A live measurement whose device time is further than this from its receive time means the device
    /// clock is wrong (seconds; default one hour).
    public var clockSkewTolerance: Double
    /// A record dated more than this after its receive time is "in the future" (seconds).
    public var futureTolerance: Double
    /// A final measurement that follows an intermediate value within this many seconds is live.
    public var liveWindow: Double
    /// The first packet of a multi-packet value is dropped when its continuation does not arrive in time.
    public var multiPacketTimeout: Double
    /// The plausibility table every device sample is screened against (a profile's `plausibility` overrides
    /// rows of it for its device).
    public var plausibility: PlausibilityTable = .standard
    /// The bind keys of devices whose advertisements are encrypted (a profile's `envelope`), by address.
    public var bindKeys = BindKeys()

    public init(
        timeZone: TimeZone,
        clockSkewTolerance: Double = 3600,
        futureTolerance: Double = 300,
        liveWindow: Double = 120,
        multiPacketTimeout: Double = 5
    ) {
        self.timeZone = timeZone
        self.clockSkewTolerance = clockSkewTolerance
        self.futureTolerance = futureTolerance
        self.liveWindow = liveWindow
        self.multiPacketTimeout = multiPacketTimeout
    }
}
