public import BridgeCore
import BridgeFoundation
public import Foundation
public import Logging
import Synchronization

/// A ``DeviceTransport`` that plays a recording back, paced by an injected clock.
///
/// Event times are the recorded ones (`recordedAt + t`), whatever the speed, so a replayed session produces
/// the same samples as the live one did. The file is read one line at a time while the events are consumed
/// (the stream is pull-based), so memory stays flat.
public final class ReplayTransport<C: Clock>: DeviceTransport where C.Duration == Duration {
    /// What the located stream yields.
    public enum Item: Sendable {
        case event(TransportEvent, RecordingLocation)
        /// A bad line, skipped.
        case problem(RecordingProblem)
    }

    public let header: RecordingHeader
    public let path: String
    private let speed: ReplaySpeed
    private let clock: C
    private let logger: Logger
    private let cursor: Mutex<Cursor>

    private struct Cursor {
        var reader: RecordingReader?
        var start: (instant: C.Instant, t: Double)?
        /// Runs the profiles' session steps against the recording (``answerSessions(policy:timeZone:)``).
        var answerer: SessionAnswerer?
        /// Items the answerer produced for one line, not yet consumed, with their `t`.
        var pending: [(Item, Double?)] = []
        var lastLocation: RecordingLocation?
    }

    /// Opens a recording for replay.
    /// - Parameters:
    ///   - path: the `.jsonl` file.
    ///   - speed: pacing; `.max` never sleeps.
    ///   - clock: the clock to sleep on (a test clock in tests).
    ///   - logger: receives warnings about unknown kinds and keys.
    /// - Throws: ``RecordingError`` when the file or its header cannot be read.
    public init(path: String, speed: ReplaySpeed = .max, clock: C, logger: Logger) throws(RecordingError) {
        let reader = try RecordingReader(path: path, logger: logger)
        self.header = reader.header
        self.path = path
        self.speed = speed
        self.clock = clock
        self.logger = logger
        self.cursor = Mutex(Cursor(reader: reader))
    }

    /// Makes the recording answer the bridge: each device's profile session runs against it, the device's
    /// recorded answers are delivered only after the bridge wrote what the recording shows it wrote, and a
    /// divergence (a different write, a write the recording does not show, or a recorded write the bridge did
    /// not make) is reported as a problem at its line. Session variables (a download cursor) start empty and
    /// live for this replay only, so a recording replays the same each time; the header's `sessionVariables`
    /// (`{"ADDRESS": {"consentCode": 1234}}`) gives what the bridge knew before it started. Call before consuming.
    /// - Parameters:
    ///   - policy: the device profiles (which session each device runs).
    ///   - timeZone: the zone device clocks keep (written Current Time).
    public func answerSessions(policy: any ConnectionPolicy, timeZone: TimeZone) {
        var answerer = SessionAnswerer(policy: policy, timeZone: header.timeZone ?? timeZone)
        answerer.seeds = SessionAnswerer.seeds(from: header.extra["sessionVariables"])
        cursor.withLock { $0.answerer = answerer }
    }

    /// Events with their `file:line`, and bad lines, in file order. Can be consumed once.
    public func items() -> AsyncThrowingStream<Item, any Error> {
        AsyncThrowingStream { [self] () async throws -> Item? in try await nextItem() }
    }

    private func nextItem() async throws -> Item? {
        if Task.isCancelled { return nil }  // the stream finishes on cancellation
        let next: (Item, Double?)? = cursor.withLock { cursor in
            while cursor.pending.isEmpty {
                guard let reader = cursor.reader else { return nil }
                guard let item = reader.next() else {
                    cursor.reader = nil  // closes the file
                    if var answerer = cursor.answerer, let location = cursor.lastLocation {
                        cursor.pending = answerer.finish(location: location).map { (Self.item($0), nil) }
                        cursor.answerer = answerer
                    }
                    continue
                }
                switch item {
                case .event(let recorded):
                    cursor.lastLocation = recorded.location
                    // Taken out while it runs, so its tables are changed in place rather than copied on write.
                    guard var answerer = cursor.answerer.take() else {
                        return (.event(recorded.event, recorded.location), recorded.t)
                    }
                    let outputs = answerer.process(recorded)
                    cursor.answerer = answerer
                    func paced(_ output: SessionAnswerer.Output) -> (Item, Double?) {
                        if case .event = output { (Self.item(output), recorded.t) } else { (Self.item(output), nil) }
                    }
                    // Almost every line gives exactly its own event: handed on without the queue.
                    if outputs.count == 1 { return paced(outputs[0]) }
                    cursor.pending = outputs.map(paced)
                case .problem(let problem):
                    return (.problem(problem), nil)
                }
            }
            return cursor.pending.removeFirst()
        }
        guard let (item, t) = next else { return nil }
        if let t, case .factor(let factor) = speed, !(await paced(t: t, factor: factor)) { return nil }
        return item
    }

    private static func item(_ output: SessionAnswerer.Output) -> Item {
        switch output {
        case .event(let event, let location): .event(event, location)
        case .problem(let problem): .problem(problem)
        }
    }

    private func pace(t: Double, factor: Double) async throws {
        let now = clock.now
        let start = cursor.withLock { cursor in
            if cursor.start == nil { cursor.start = (now, t) }
            return cursor.start!
        }
        // Both bounded (t by the supported range, factor by ReplaySpeed.factors), yet Duration traps on
        // overflow: never wait more than a century.
        let delay = min(max((t - start.t) / factor, 0), 3_155_760_000)
        let deadline = start.instant.advanced(by: .seconds(delay.isFinite ? delay : 0))
        if deadline > now { try await clock.sleep(until: deadline, tolerance: nil) }
    }

    /// Waits for the event's time; false when the task was cancelled meanwhile (the event has not happened
    /// yet, so it is not delivered and the stream ends).
    private func paced(t: Double, factor: Double) async -> Bool {
        do {
            try await pace(t: t, factor: factor)
            return true
        } catch {
            return false
        }
    }

    // MARK: - DeviceTransport

    /// The events alone; bad lines are logged as warnings and skipped.
    public func events() -> AsyncThrowingStream<TransportEvent, any Error> {
        AsyncThrowingStream { [self] () async throws -> TransportEvent? in
            while let item = try await nextItem() {
                switch item {
                case .event(let event, _): return event
                case .problem(let problem):
                    logger.warning("skipping bad line", metadata: ["problem": "\(problem)"])
                }
            }
            return nil
        }
    }
}

extension ReplayTransport where C == ContinuousClock {
    /// Opens a recording for replay on the continuous clock.
    public convenience init(path: String, speed: ReplaySpeed = .max, logger: Logger) throws(RecordingError) {
        try self.init(path: path, speed: speed, clock: ContinuousClock(), logger: logger)
    }
}
