public import BridgeCore
public import Foundation
public import GATTDecoding
public import Logging
import Synchronization

/// Tees any ``DeviceTransport`` into a recording file: every event is written, then passed on unchanged.
///
/// `carebridge record` and `run --record` wrap the live BlueZ transport in it; replaying the file later
/// feeds the pipeline exactly what it saw.
public final class RecordingTransport: DeviceTransport {
    private let base: any DeviceTransport
    private let writer: Mutex<RecordingWriter?>
    private let logger: Logger

    /// Starts a recording at `path`.
    /// - Parameters:
    ///   - base: the transport to record.
    ///   - path: the file to write; an existing file is replaced only when the recording is closed.
    ///   - recordedAt: `t = 0`, normally the wall-clock time now (injected for tests).
    ///   - timeZone: the bridge's zone, written to the header.
    ///   - extra: more header keys (host, adapter, notes).
    ///   - logger: receives write failures (the events still flow on).
    /// - Throws: ``RecordingError`` when the file cannot be created.
    public init(
        recording base: any DeviceTransport,
        to path: String,
        recordedAt: Date,
        timeZone: TimeZone,
        extra: JSONObject = JSONObject(),
        logger: Logger
    ) throws(RecordingError) {
        self.base = base
        self.logger = logger
        let header = RecordingHeader(recordedAt: recordedAt, timeZone: timeZone, extra: extra)
        self.writer = Mutex(try RecordingWriter(path: path, header: header))
    }

    /// Finishes the recording and puts it at its path; later events are passed on but not recorded.
    ///
    /// With `keepEmpty: false` a recording without any event (the transport failed at once) is discarded
    /// instead, so an existing file at the path is left as it was.
    /// - Returns: whether the file was written.
    @discardableResult
    public func close(keepEmpty: Bool = true) -> Bool {
        writer.withLock { writer in
            defer { writer = nil }
            guard let current = writer else { return false }
            guard keepEmpty || current.eventCount > 0 else {
                current.discard()
                return false
            }
            do {
                try current.close()
                return true
            } catch {
                logger.error("cannot write the recording", metadata: ["error": "\(error)"])
                return false
            }
        }
    }

    // MARK: - DeviceTransport

    public func events() -> AsyncThrowingStream<TransportEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream<TransportEvent, any Error>.makeStream()
        let task = Task { [self] in
            do {
                for try await event in base.events() {
                    writer.withLock { writer in
                        do {
                            try writer?.write(event)
                        } catch {
                            // Keep what was recorded before the failure (a full disk, say).
                            logger.error("recording stopped", metadata: ["error": "\(error)"])
                            try? writer?.close()
                            writer = nil
                        }
                    }
                    continuation.yield(event)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
