public import BridgeCore
import BridgeFoundation
public import DeviceSessions
public import Foundation
public import Logging
import Synchronization

/// A ``DeviceTransport`` that plays a recording back, paced by an injected clock.
///
/// Event times are the recorded ones (`recordedAt + t`), whatever the speed, so a replayed session produces
/// the same samples as the live one did. The file is read one line at a time while the events are consumed
/// (the stream is pull-based), so memory stays flat.
public final class ReplayTransport<C: Clock>: DeviceTransport where C.Duration == Duration {
    /// What the located stream yields (``ReplayItem``).
    public typealias Item = ReplayItem

    public let header: RecordingHeader
    public let path: String
    private let speed: ReplaySpeed
    private let clock: C
    private let logger: Logger
    private let cursor: Mutex<ReplayCursor>
    /// The clock's instant and the recording's `t` of the first paced event.
    private let start = Mutex<(instant: C.Instant, t: Double)?>(nil)

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
        self.cursor = Mutex(ReplayCursor(reader: reader))
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
        answerer.capturesAnotherClient = header.isCaptureOfAnotherClient
        cursor.withLock { $0.answerer = answerer }
    }

    /// For a capture of another client (``RecordingHeader/isCaptureOfAnotherClient``), what the replay answered so
    /// far: which answers were synthesised from the records the capture shows, and what was delivered as
    /// recorded. Empty for the bridge's own recordings, which are answered byte for byte as recorded.
    public func sessionNotes() -> [RecordingProblem] {
        cursor.withLock { $0.answerer?.notes ?? [] }
    }

    /// Events with their `file:line`, and bad lines, in file order. Can be consumed once.
    public func items() -> AsyncThrowingStream<Item, any Error> {
        AsyncThrowingStream { [self] () async throws -> Item? in try await nextItem() }
    }

    private func nextItem() async throws -> Item? {
        if Task.isCancelled { return nil }  // the stream finishes on cancellation
        guard let (item, t) = cursor.withLock({ $0.next() }) else { return nil }
        if let t, case .factor(let factor) = speed, !(await paced(t: t, factor: factor)) { return nil }
        return item
    }

    private func pace(t: Double, factor: Double) async throws {
        let now = clock.now
        let start = self.start.withLock { start in
            if start == nil { start = (now, t) }
            return start!
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
