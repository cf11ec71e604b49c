public import BridgeCore

/// Where the pipeline's samples go: the store, a test collector. (Publishers follow the store's changes.)
public protocol SampleSink: Sendable {
    /// Takes one batch of samples, in pipeline order.
    /// - Throws: whatever the sink's storage throws; the pipeline stops.
    func write(_ samples: [QuantitySample]) async throws

    /// Keeps devices' battery levels (newest per device). The default drops them.
    /// - Throws: whatever the sink's storage throws; the pipeline stops.
    func record(_ batteries: [BatteryReading]) async throws
}

extension SampleSink {
    public func record(_ batteries: [BatteryReading]) async throws {}
}

/// Keeps every sample in memory (tests). Package-only: not part of the library's API.
package actor SampleCollector: SampleSink {
    package private(set) var samples: [QuantitySample] = []
    package private(set) var batteries: [BatteryReading] = []

    package init() {}

    package func write(_ samples: [QuantitySample]) async throws {
        self.samples.append(contentsOf: samples)
    }

    package func record(_ batteries: [BatteryReading]) async throws {
        self.batteries.append(contentsOf: batteries)
    }
}

/// Drops every sample (the validation pass of `replay --strict`, benchmarks). Package-only: not part of the
/// library's API.
package struct DiscardingSink: SampleSink {
    package init() {}

    package func write(_ samples: [QuantitySample]) async throws {}
}
