import BridgeFoundation
public import Foundation

/// A buffered sink writing UTF-8 to a file handle in 64 KiB blocks.
///
/// Use `sink.write` as an ``ExportSink``; call ``flush()`` (or ``close()``) when done.
public final class FileSink: TextOutputStream {
    private let handle: FileHandle?
    private let file: SafeOutputFile?
    private var buffer: [UInt8] = []
    private let capacity: Int
    /// Where the text goes, for error messages.
    public let name: String
    /// Bytes handed to the file so far (flushed or not).
    public private(set) var byteCount = 0
    /// The `.partial` files a killed export to the same path left, removed when this sink opened it.
    public var removedStale: [String] { file?.removedStale ?? [] }

    /// Writes to an open handle (e.g. `FileHandle.standardOutput`); the handle is not closed.
    public init(handle: FileHandle, name: String, capacity: Int = 1 << 16) {
        self.handle = handle
        self.file = nil
        self.name = name
        self.capacity = capacity
        buffer.reserveCapacity(capacity)
    }

    /// Writes to `path` through a ``SafeOutputFile``: a temporary file (mode `mode`, default 0600) that replaces
    /// `path` only at ``close()``, so a failed export leaves an existing file as it was, and a killed one a
    /// `.partial` file that the next export to `path` removes. A device such as `/dev/null` is written directly
    /// and stays a device.
    /// - Parameter inputs: files the export reads (the store); `path` may not be one of them.
    /// - Throws: ``ExportError`` with code `output` when the file cannot be created or is one of `inputs`.
    public init(path: String, mode: mode_t = 0o600, inputs: [String] = [], capacity: Int = 1 << 16) throws(ExportError)
    {
        do {
            self.file = try SafeOutputFile(path: path, mode: mode, inputs: inputs, removingStale: true)
        } catch {
            throw ExportError(code: .output, message: error.description)
        }
        self.handle = nil
        self.name = path
        self.capacity = capacity
        buffer.reserveCapacity(capacity)
    }

    /// Appends `text`; writes the buffer when it is full.
    public func append(_ text: String) throws(ExportError) {
        buffer.append(contentsOf: text.utf8)
        byteCount += text.utf8.count
        if buffer.count >= capacity { try flush() }
    }

    /// `TextOutputStream`: like ``append(_:)``, but a failed write is dropped silently; prefer ``append(_:)``.
    public func write(_ string: String) {
        try? append(string)
    }

    /// Writes what is buffered.
    public func flush() throws(ExportError) {
        guard !buffer.isEmpty else { return }
        if let file {
            do throws(OutputFileError) {
                try file.write(buffer)
            } catch {
                throw ExportError(code: .output, message: error.description)
            }
        } else if let handle {
            do {
                try handle.write(contentsOf: buffer)
            } catch {
                throw ExportError(code: .output, message: "cannot write to \(name): \(error)")
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes, and for a file this sink opened puts it in place (synced, replacing what was at the path).
    public func close() throws(ExportError) {
        try flush()
        guard let file else { return }
        do {
            try file.commit()
        } catch {
            throw ExportError(code: .output, message: error.description)
        }
    }
}
