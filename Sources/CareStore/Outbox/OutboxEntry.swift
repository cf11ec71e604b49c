public import BridgeCore
public import Foundation

/// One sample waiting in the outbox of a channel (e.g. `mqtt`), in delivery order; on the `hub` channel also an
/// outcome (``outcome``) or a task version (``taskVersion``; then `sample` and `sampleID` are nil).
public struct OutboxEntry: Sendable, Hashable {
    /// Delivery order: increases with every enqueued sample, never reused.
    public var sequence: Int64
    /// The stored sample; nil when its row is gone (the entry is then dropped on delivery).
    public var sample: StoredSample?
    public var sampleID: UUID?
    /// When the sample was stored and queued.
    public var enqueuedAt: Date
    /// The outcome an entry of the `hub` channel stands for, read when the entry was.
    public var outcome: OutboxOutcome?
    /// The task version an entry of the `hub` channel stands for (``TaskVersionOutboxSchema``).
    public var taskVersion: StoredTask?

    public init(
        sequence: Int64,
        sample: StoredSample?,
        sampleID: UUID?,
        enqueuedAt: Date,
        outcome: OutboxOutcome? = nil,
        taskVersion: StoredTask? = nil
    ) {
        self.sequence = sequence
        self.sample = sample
        self.sampleID = sampleID
        self.enqueuedAt = enqueuedAt
        self.outcome = outcome
        self.taskVersion = taskVersion
    }
}

/// What an outbox channel holds: the count, the oldest entry, and a breakdown per device and quantity type.
public struct OutboxSummary: Sendable, Hashable {
    /// Pending entries of one device (key; nil for manual samples) and quantity type.
    public struct Group: Sendable, Hashable {
        public var deviceKey: String?
        public var type: QuantityType
        public var count: Int
        public var oldestEnqueuedAt: Date
        public var oldestSampleStart: Date
    }

    public var channel: String
    /// Whether newly stored samples are queued for this channel.
    public var isEnabled: Bool
    public var count: Int
    public var oldestEnqueuedAt: Date?
    /// Groups in delivery order of their first entry.
    public var groups: [Group]
}
