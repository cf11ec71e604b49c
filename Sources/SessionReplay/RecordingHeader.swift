public import BridgeFoundation
public import Foundation

/// Line 1 of a recording: `{"format": "carebridge-recording", "version": 1, "recordedAt": …, "timeZone": …}`.
public struct RecordingHeader: Sendable, Equatable {
    public static let format = "carebridge-recording"
    /// The newest format version this build reads and writes.
    public static let currentVersion = 1

    public var version: Int
    /// The instant `t = 0` of the events.
    public var recordedAt: Date
    /// The zone the bridge (and the devices' clocks) were in; device timestamps are read in it.
    public var timeZone: TimeZone?
    /// Any other header keys (host, adapter, notes, …), in file order.
    public var extra: JSONObject

    /// The recording is a capture of another client (its header names a `source` other than the bridge, as
    /// `import btsnoop` writes `"source": "btsnoop"`), not a recording the bridge made of its own session.
    public var isCaptureOfAnotherClient: Bool {
        guard case .string(let source) = extra["source"] else { return false }
        return source != "carebridge"
    }

    public init(version: Int = currentVersion, recordedAt: Date, timeZone: TimeZone?, extra: JSONObject = JSONObject())
    {
        self.version = version
        self.recordedAt = recordedAt
        self.timeZone = timeZone
        self.extra = extra
    }
}
