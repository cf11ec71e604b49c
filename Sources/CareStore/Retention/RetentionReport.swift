public import BridgeCore
public import Foundation

/// What a vacuum would do (``CareStore/retentionPlan(now:)``) or did (``CareStore/applyRetention(now:batchSeconds:progress:)``)
/// for one type with a retention rule.
public struct RetentionStep: Sendable, Hashable {
    public var type: QuantityType
    public var keepRawDays: Int
    public var aggregateMinutes: Int
    /// Raw samples measured before this instant (bucket-aligned) are aggregated.
    public var horizon: Date
    /// Raw samples aggregated and then deleted.
    public var samples: Int
    /// Aggregate buckets written (a plan counts the buckets the samples fall in; some may merge into
    /// aggregates already stored).
    public var aggregates: Int

    public init(
        type: QuantityType,
        keepRawDays: Int,
        aggregateMinutes: Int,
        horizon: Date,
        samples: Int,
        aggregates: Int
    ) {
        self.type = type
        self.keepRawDays = keepRawDays
        self.aggregateMinutes = aggregateMinutes
        self.horizon = horizon
        self.samples = samples
        self.aggregates = aggregates
    }
}

/// A vacuum's progress after each committed batch.
public struct RetentionProgress: Sendable, Hashable {
    public var type: QuantityType
    /// Samples of this type aggregated (and deleted) so far, committed.
    public var samplesDone: Int
    /// Samples of this type the plan counted before the vacuum started.
    public var samplesPlanned: Int
    /// The measurement time the vacuum has reached.
    public var reached: Date
}
