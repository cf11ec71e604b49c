public import BridgeCore

/// Where the pipeline's samples go: the store, a test collector. (Publishers follow the store's changes.)
public protocol SampleSink: Sendable {
    /// Takes one batch of samples, in pipeline order.
    /// - Throws: whatever the sink's storage throws; the pipeline stops.
    func write(_ samples: [QuantitySample]) async throws
}

/// Keeps every sample in memory (tests, `--dry-run`-style validation).
public actor SampleCollector: SampleSink {
    public private(set) var samples: [QuantitySample] = []

    public init() {}

    public func write(_ samples: [QuantitySample]) async throws {
        self.samples.append(contentsOf: samples)
    }
}

/// Drops every sample (the validation pass of `replay --strict`).
public struct DiscardingSink: SampleSink {
    public init() {}

    public func write(_ samples: [QuantitySample]) async throws {}
}
