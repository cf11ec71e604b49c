public import BridgeCore
public import CareStore
public import Foundation
public import SampleIngest

/// Writes the pipeline's samples into the care-plan store (one transaction per batch, auto-completing the
/// linked events) and keeps the store's figures for the summary.
public actor CareStoreSink: SampleSink {
    public let store: CareStore
    /// Stamped on every row and outcome value this sink writes.
    public let recordedAt: Date
    public private(set) var inserted = 0
    public private(set) var duplicates = 0
    public private(set) var unmatched = 0
    /// The events whose outcome this sink's writes created or re-derived, as the store reported them.
    public private(set) var updatedEvents: Set<EventKey> = []

    public init(store: CareStore, recordedAt: Date) {
        self.store = store
        // Whole milliseconds, as the store keeps them.
        self.recordedAt = Date(timeIntervalSince1970: (recordedAt.timeIntervalSince1970 * 1000).rounded() / 1000)
    }

    public func write(_ samples: [QuantitySample]) async throws {
        let report = try await store.recordSamples(samples, recordedAt: recordedAt)
        inserted += report.inserted
        duplicates += report.duplicates
        unmatched += report.unmatched
        updatedEvents.formUnion(report.updatedEvents)
    }

    public func record(_ batteries: [BatteryReading]) async throws {
        try await store.recordBatteries(batteries)
    }

    /// The events this sink's samples completed: of the events the store says it updated, those now completed,
    /// sorted by start. Empty when nothing new was stored (a second replay).
    public func completedEvents() async throws(CareStoreError) -> [CareEvent] {
        try await store.events(keys: updatedEvents).filter(\.isCompleted)
    }
}
