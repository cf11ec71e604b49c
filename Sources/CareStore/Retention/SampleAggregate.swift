public import BridgeCore
public import Foundation

/// The samples of one bucket that a vacuum replaced (``CareStore/applyRetention(now:batchSeconds:progress:)``):
/// one type, unit, source kind, device and patient, measured in `[bucketStart, bucketEnd)`.
///
/// Count, sum, min, max, first and last are exact (computed from the raw samples before they were deleted),
/// with the measurement time of each; the mean is `sum / count`. A query by time places an aggregate at its
/// first sample (``firstAt``).
public struct SampleAggregate: Sendable, Hashable {
    public var type: QuantityType
    /// The type's canonical unit, as the raw samples stored it.
    public var unit: HealthUnit
    public var bucketStart: Date
    public var bucketEnd: Date
    public var sourceKind: SampleSource.Kind
    public var device: DeviceIdentity?
    public var patientID: String?
    /// How many raw samples it replaced.
    public var count: Int
    public var sum: Double
    public var min: Double
    public var minAt: Date
    public var max: Double
    public var maxAt: Date
    public var first: Double
    public var firstAt: Date
    public var last: Double
    public var lastAt: Date

    public init(
        type: QuantityType,
        unit: HealthUnit,
        bucketStart: Date,
        bucketEnd: Date,
        sourceKind: SampleSource.Kind,
        device: DeviceIdentity?,
        patientID: String?,
        count: Int,
        sum: Double,
        min: (Double, Date),
        max: (Double, Date),
        first: (Double, Date),
        last: (Double, Date)
    ) {
        self.type = type
        self.unit = unit
        self.bucketStart = bucketStart
        self.bucketEnd = bucketEnd
        self.sourceKind = sourceKind
        self.device = device
        self.patientID = patientID
        self.count = count
        self.sum = sum
        (self.min, self.minAt) = min
        (self.max, self.maxAt) = max
        (self.first, self.firstAt) = first
        (self.last, self.lastAt) = last
    }

    /// `sum / count`.
    public var mean: Double { sum / Double(count) }
}
