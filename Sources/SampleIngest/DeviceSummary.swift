public import BridgeCore

/// A device the pipeline saw.
public struct DeviceSummary: Sendable, Hashable {
    public var identity: DeviceIdentity
    /// Id of the claiming profile, nil when none claimed it.
    public var profile: String?
    /// Samples emitted for the device.
    public var samples: Int
    /// Stored records the device sent in answer to the bridge's report-records requests (RACP `01 …` up to the
    /// `06` response): measurement values, not samples (a blood-pressure record gives several samples).
    public var downloadedRecords: Int

    public init(identity: DeviceIdentity, profile: String?, samples: Int, downloadedRecords: Int = 0) {
        self.identity = identity
        self.profile = profile
        self.samples = samples
        self.downloadedRecords = downloadedRecords
    }
}
