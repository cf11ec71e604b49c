public import BridgeCore
public import CareStore
public import Foundation

/// Writes the pipeline's samples into the care-plan store (one transaction per batch, auto-completing the
/// linked events) and keeps the store's figures for the summary.
public actor CareStoreSink: SampleSink {
    public let store: CareStore
    /// Stamped on every row and outcome value this sink writes, so the run's own effect can be found again.
    public let recordedAt: Date
    public private(set) var inserted = 0
    public private(set) var duplicates = 0
    public private(set) var unmatched = 0
    private var earliest: Date?
    private var latest: Date?

    public init(store: CareStore, recordedAt: Date) {
        self.store = store
        // Whole milliseconds, as the store keeps them, so the comparison below is exact.
        self.recordedAt = Date(timeIntervalSince1970: (recordedAt.timeIntervalSince1970 * 1000).rounded() / 1000)
    }

    public func write(_ samples: [QuantitySample]) async throws {
        let report = try store.recordSamples(samples, recordedAt: recordedAt)
        inserted += report.inserted
        duplicates += report.duplicates
        unmatched += report.unmatched
        guard report.inserted > 0 else { return }
        for sample in samples {
            if earliest == nil || sample.start < earliest! { earliest = sample.start }
            if latest == nil || sample.end > latest! { latest = sample.end }
        }
    }

    /// The events this sink's samples completed: completed events around the samples' times whose outcome
    /// holds a value recorded by this run. Empty when nothing new was stored (a second replay).
    public func completedEvents() throws(CareStoreError) -> [CareEvent] {
        guard let earliest, let latest else { return [] }
        let query = EventQuery(
            from: earliest.addingTimeInterval(-2 * 86_400),
            to: latest.addingTimeInterval(2 * 86_400)
        )
        return try store.events(matching: query).filter { event in
            event.isCompleted
                && (event.outcome?.values.contains { abs($0.recordedAt.timeIntervalSince(recordedAt)) < 0.0005 }
                    ?? false)
        }
    }
}
