public import Foundation

/// What an exported aggregate stands for: raw samples a retention vacuum replaced (the record's sample then
/// carries their mean as its value and the first and last sample's times as start and end).
public struct ExportAggregate: Sendable, Hashable {
    /// How many raw samples.
    public var count: Int
    public var min: Double
    public var max: Double
    public var sum: Double
    /// The bucket the samples were measured in, `[bucketStart, bucketEnd)`.
    public var bucketStart: Date
    public var bucketEnd: Date

    public init(count: Int, min: Double, max: Double, sum: Double, bucketStart: Date, bucketEnd: Date) {
        self.count = count
        self.min = min
        self.max = max
        self.sum = sum
        self.bucketStart = bucketStart
        self.bucketEnd = bucketEnd
    }
}
