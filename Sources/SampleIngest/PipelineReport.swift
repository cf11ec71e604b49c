public import BridgeCore
public import SessionReplay

/// A problem found while ingesting, with where it came from when the input was a recording.
public struct IngestProblem: Sendable, Hashable, CustomStringConvertible {
    /// `file:line` for recordings; nil for live transports.
    public var location: RecordingLocation?
    public var device: String?
    public var message: String

    public init(location: RecordingLocation?, device: String?, message: String) {
        self.location = location
        self.device = device
        self.message = message
    }

    public var description: String {
        var text = location.map { "\($0): " } ?? ""
        if let device { text += "\(device): " }
        return text + message
    }
}

/// What one ingest run did: devices, samples by type, bad lines and warnings.
public struct PipelineReport: Sendable {
    public var events = 0
    public var devices: [DeviceSummary] = []
    public var samplesByType: [QuantityType: Int] = [:]
    /// Events that could not be used (bad lines for recordings), in input order.
    public var badEvents: [IngestProblem] = []
    public var warnings: [IngestProblem] = []
    /// A capture of another client replayed: which session answers were synthesised from the records it shows
    /// and what was delivered as captured (``ReplayTransport/sessionNotes()``); empty otherwise.
    public var sessionAnswers: [IngestProblem] = []
    /// Samples quarantined by the safety stage (implausible, or invalid by their device's status); included in
    /// ``samplesByType``.
    public var quarantined = 0
    /// LO/HI samples (beyond the device's measurement range); included in ``samplesByType``.
    public var outOfRange = 0

    public init() {}

    /// Counts one sample the pipeline produced.
    public mutating func count(_ sample: borrowing QuantitySample) {
        samplesByType[sample.type, default: 0] += 1
        if sample.isQuarantined { quarantined += 1 }
        if sample.comparator != nil { outOfRange += 1 }
    }

    /// Every sample the pipeline produced.
    public var samples: Int { samplesByType.values.reduce(0, +) }

    /// Stored records downloaded from every device (``DeviceSummary/downloadedRecords``).
    public var downloadedRecords: Int { devices.reduce(0) { $0 + $1.downloadedRecords } }

    /// Adds another run's figures (one report for several files).
    public mutating func merge(_ other: PipelineReport) {
        events += other.events
        // One dictionary per merge, not a search per device: a recording with rotating random addresses has
        // tens of thousands of devices.
        var positions = [String: Int](minimumCapacity: devices.count + other.devices.count)
        for (index, device) in devices.enumerated() where positions[device.identity.key] == nil {
            positions[device.identity.key] = index
        }
        for device in other.devices {
            if let index = positions[device.identity.key] {
                devices[index].samples += device.samples
                devices[index].downloadedRecords += device.downloadedRecords
                devices[index].identity = device.identity
                devices[index].profile = device.profile ?? devices[index].profile
            } else {
                positions[device.identity.key] = devices.count
                devices.append(device)
            }
        }
        for (type, count) in other.samplesByType { samplesByType[type, default: 0] += count }
        quarantined += other.quarantined
        outOfRange += other.outOfRange
        badEvents += other.badEvents
        warnings += other.warnings
        sessionAnswers += other.sessionAnswers
    }
}
