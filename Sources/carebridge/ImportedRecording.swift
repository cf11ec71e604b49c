import BridgeCore
import BridgeFoundation
import Foundation
import SessionReplay

/// The recording `import btsnoop` writes, to a file or to standard output, as the importer settles its events. The
/// header's time is the first event's, so the header is written with the first event (or at the end, when there
/// is none).
struct ImportedRecording {
    /// The recording file; nil writes to standard output.
    let path: String?
    /// The capture, which the recording may not replace.
    let input: String
    let mode: mode_t
    let timeZone: TimeZone?
    let extra: JSONObject
    private var writer: RecordingWriter?
    private var recordedAt: Date?
    /// Lines for standard output not written yet (written in steps of about 64 KiB).
    private var pending = ""
    /// Events written so far.
    private(set) var eventCount = 0

    init(path: String?, input: String, mode: mode_t, timeZone: TimeZone?, extra: JSONObject) {
        self.path = path
        self.input = input
        self.mode = mode
        self.timeZone = timeZone
        self.extra = extra
    }

    /// Appends events in recording order.
    /// - Throws: ``RecordingError`` when the file cannot be created or written.
    mutating func write(_ events: [TransportEvent]) throws(RecordingError) {
        guard let first = events.first else { return }
        if recordedAt == nil { try start(recordedAt: first.time) }
        guard let recordedAt else { return }
        for event in events {
            eventCount += 1
            if let writer {
                try writer.write(event)
            } else if let line = RecordingWriter.line(for: event, recordedAt: recordedAt) {
                pending += line + "\n"
                if pending.utf8.count >= 1 << 16 { flush() }
            }
        }
    }

    /// Finishes the recording: puts the file in place, or writes the rest to standard output.
    /// - Parameter recordedAt: the header's time when no event was written.
    /// - Throws: ``RecordingError`` when the file cannot be written; an existing file at `path` is then unchanged.
    mutating func close(recordedAt fallback: Date) throws(RecordingError) {
        if recordedAt == nil { try start(recordedAt: fallback) }
        if let writer { try writer.close() } else { flush() }
    }

    /// Abandons a recording file: nothing appears at `path`.
    func discard() {
        writer?.discard()
    }

    private mutating func start(recordedAt: Date) throws(RecordingError) {
        self.recordedAt = recordedAt
        let header = RecordingHeader(recordedAt: recordedAt, timeZone: timeZone, extra: extra)
        if let path {
            writer = try RecordingWriter(path: path, header: header, inputs: [input], mode: mode)
        } else {
            pending = RecordingWriter.line(for: header) + "\n"
        }
    }

    private mutating func flush() {
        FileHandle.standardOutput.write(Data(pending.utf8))
        pending = ""
    }
}
