public import BridgeCore
public import Foundation

/// What the store holds and what retention would free (``CareStore/statistics(now:)``).
public struct StoreStatistics: Sendable, Hashable {
    /// Bytes of one table or index.
    public struct Object: Sendable, Hashable {
        public var name: String
        /// The table an index belongs to (its own name for a table).
        public var table: String
        public var bytes: Int
    }

    /// One quantity type.
    public struct TypeRow: Sendable, Hashable {
        public var type: QuantityType
        /// Live raw samples (quarantined included).
        public var samples: Int
        public var quarantined: Int
        /// Deleted samples kept as tombstones (so a re-import does not bring them back).
        public var tombstones: Int
        /// Bytes attributed to the type: its share (by row count) of the tables holding samples.
        public var estimatedBytes: Int
        public var aggregates: Int
        /// Raw samples the aggregates stand for.
        public var aggregatedSamples: Int
        public var oldest: Date?
        public var newest: Date?
        /// The type's retention rule, nil when it is kept raw forever.
        public var rule: RetentionStep?
        /// Estimated bytes a vacuum would free now (nil without a rule).
        public var wouldFreeBytes: Int?
    }

    /// The file, its write-ahead log, and the free pages inside the file.
    public var fileBytes: Int
    public var walBytes: Int
    public var freeBytes: Int
    /// Per table and index, from SQLite's `dbstat` virtual table; empty when this SQLite lacks it.
    public var objects: [Object]
    /// Whether byte figures come from `dbstat` (true) or are estimated from page counts (false).
    public var measured: Bool
    public var types: [TypeRow]
    /// Estimated bytes one aggregate row takes.
    public var bytesPerAggregate: Int
}
