public import BridgeCore
public import BridgeFoundation
public import Foundation
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
    ///   - path: the file to create (truncated if it exists).
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

    /// Writes any buffered lines and closes the file; later events are passed on but not recorded.
    public func close() {
        writer.withLock { writer in
            writer?.flush()
            writer = nil
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
                            logger.error("recording stopped", metadata: ["error": "\(error)"])
                            writer = nil
                        }
                    }
                    continuation.yield(event)
                }
                writer.withLock { $0?.flush() }
                continuation.finish()
            } catch {
                writer.withLock { $0?.flush() }
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
