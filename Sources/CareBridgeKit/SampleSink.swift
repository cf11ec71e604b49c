public import BridgeCore

/// Where the pipeline's samples go: the store, an MQTT publisher, a test collector.
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

/// Hands every batch to several sinks in turn (the store and the MQTT publisher).
public struct FanOutSink: SampleSink {
    public var sinks: [any SampleSink]

    public init(_ sinks: [any SampleSink]) {
        self.sinks = sinks
    }

    public func write(_ samples: [QuantitySample]) async throws {
        for sink in sinks { try await sink.write(samples) }
    }
}
