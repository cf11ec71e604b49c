public import BridgeCore
public import DeviceProfiles
public import Logging
public import SessionReplay

/// Connects a transport, the pipeline and a sink: reads events, writes samples in batches, collects a report.
public enum PipelineRunner {
    /// Samples per sink write when replaying as fast as possible: large enough that a store transaction's fixed
    /// cost disappears, small enough that the batch being written and the one filling stay a few MB.
    public static let defaultBatchSize = 16_384

    /// Replays one recording through the pipeline into `sink`.
    ///
    /// Device clocks are read in the recording's zone when its header names one, else in
    /// `configuration.timeZone`. Devices whose profile has session steps run them against the recording
    /// (``ReplayTransport/answerSessions(policy:timeZone:)``); a divergence is a bad event.
    ///
    /// Writing a batch overlaps with reading and decoding the next one: at most one batch is being written while
    /// the next fills (so memory stays bounded by two batches), and batches reach the sink one at a time, in
    /// order. A failed write stops the replay at the next batch boundary (or at the end) with the sink's error.
    /// - Parameters:
    ///   - batchSize: samples per ``SampleSink/write(_:)`` call.
    ///   - progress: called with the current line number every few thousand events.
    /// - Throws: what the transport or the sink throws.
    public static func replay<C: Clock>(
        _ transport: ReplayTransport<C>,
        catalog: DeviceCatalog,
        configuration: PipelineConfiguration,
        sink: any SampleSink,
        batchSize: Int = defaultBatchSize,
        logger: Logger,
        progress: (@Sendable (Int) -> Void)? = nil
    ) async throws -> PipelineReport where C.Duration == Duration {
        var configuration = configuration
        if let zone = transport.header.timeZone { configuration.timeZone = zone }
        // Profiles with session steps (RACP downloads, handshakes) run them against the recording.
        transport.answerSessions(policy: catalog, timeZone: configuration.timeZone)
        var pipeline = IngestPipeline(catalog: catalog, configuration: configuration, logger: logger)
        var batch = Batch(sink: sink, size: batchSize)
        var issues: [PipelineIssue] = []
        do {
            for try await item in transport.items() {
                switch item {
                case .problem(let problem):
                    batch.report.badEvents.append(
                        IngestProblem(location: problem.location, device: nil, message: problem.message)
                    )
                case .event(let event, let location):
                    batch.report.events += 1
                    pipeline.ingest(event, samples: &batch.samples, issues: &issues)
                    if pipeline.hasBatteryReadings { try await sink.record(pipeline.takeBatteryReadings()) }
                    if !issues.isEmpty {
                        batch.record(issues, location: location)
                        issues.removeAll(keepingCapacity: true)
                    }
                    if batch.samples.count >= batchSize { try await batch.flushOverlapping() }
                    if let progress, batch.report.events % 2048 == 0 { progress(location.line) }
                }
            }
            pipeline.finish(samples: &batch.samples, issues: &issues)
            batch.record(issues, location: nil)
            try await batch.flushOverlapping()
            try await batch.finishWriting()
        } catch {
            // No write outlives the call, also when reading failed.
            try? await batch.finishWriting()
            throw error
        }
        batch.report.devices = pipeline.deviceSummaries
        batch.report.sessionAnswers = transport.sessionNotes().map {
            IngestProblem(location: $0.location, device: nil, message: $0.message)
        }
        return batch.report
    }

    /// Runs a live transport until its stream ends (or the task is cancelled).
    public static func run(
        _ transport: any DeviceTransport,
        catalog: DeviceCatalog,
        configuration: PipelineConfiguration,
        sink: any SampleSink,
        logger: Logger
    ) async throws -> PipelineReport {
        var pipeline = IngestPipeline(catalog: catalog, configuration: configuration, logger: logger)
        var batch = Batch(sink: sink, size: 1)
        var issues: [PipelineIssue] = []
        for try await event in transport.events() {
            batch.report.events += 1
            pipeline.ingest(event, samples: &batch.samples, issues: &issues)
            if pipeline.hasBatteryReadings { try await sink.record(pipeline.takeBatteryReadings()) }
            for issue in issues {
                logger.warning("\(issue.message)", metadata: ["device.address": "\(issue.device)"])
            }
            batch.record(issues, location: nil)
            issues.removeAll(keepingCapacity: true)
            try await batch.flush()  // live samples go out as they come
        }
        pipeline.finish(samples: &batch.samples, issues: &issues)
        batch.record(issues, location: nil)
        try await batch.flush()
        batch.report.devices = pipeline.deviceSummaries
        return batch.report
    }

    private struct Batch {
        let sink: any SampleSink
        let size: Int
        var samples: [QuantitySample] = []
        var report = PipelineReport()
        /// The batch being written while the next one fills (``flushOverlapping()``).
        var writing: Task<Void, any Error>?

        init(sink: any SampleSink, size: Int) {
            self.sink = sink
            self.size = size
            samples.reserveCapacity(size + 64)
        }

        mutating func record(_ issues: [PipelineIssue], location: RecordingLocation?) {
            for issue in issues {
                let problem = IngestProblem(location: location, device: issue.device, message: issue.message)
                switch issue.severity {
                case .badEvent: report.badEvents.append(problem)
                case .warning: report.warnings.append(problem)
                }
            }
        }

        mutating func flush() async throws {
            guard !samples.isEmpty else { return }
            countSamples()
            try await sink.write(samples)
            samples.removeAll(keepingCapacity: true)
        }

        /// Hands the batch to the sink without waiting for it to be written; first waits for the previous batch.
        mutating func flushOverlapping() async throws {
            guard !samples.isEmpty else { return }
            countSamples()
            try await finishWriting()
            let full = samples
            let sink = self.sink
            writing = Task { try await sink.write(full) }
            samples = []
            samples.reserveCapacity(size + 64)
        }

        /// Counts the batch into the report, reading the samples in place (a loop over the array copied each
        /// sample, retaining and releasing its shared parts).
        mutating func countSamples() {
            var counted = PipelineReport()
            swap(&counted, &report)  // the report is counted into while the samples are read
            samples.withUnsafeBufferPointer { batch in
                for index in batch.indices { counted.count(batch[index]) }
            }
            swap(&counted, &report)
        }

        /// Waits for the batch being written, if any; rethrows its error.
        mutating func finishWriting() async throws {
            guard let writing else { return }
            self.writing = nil
            try await writing.value
        }
    }
}
