public import CareStore
public import SampleIngest

/// What one ``Bridge/run(recordedAt:)`` did.
public struct BridgeOutcome: Sendable {
    /// Events read, samples produced, bad lines and warnings, per-device figures.
    public var report = PipelineReport()
    /// Samples new to the store.
    public var inserted = 0
    /// Samples the store already held.
    public var duplicates = 0
    /// New samples that fed no event.
    public var unmatched = 0
    /// The events the run's samples completed (the store names the events it changed), sorted by start.
    public var completed: [CareEvent] = []
    /// The recording a graceful shutdown cut short (what was read of it is stored); nil when every recording was
    /// read to its end, and for a live source.
    public var interruptedIn: String?

    public init() {}
}
