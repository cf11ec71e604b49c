public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A buffered sink writing UTF-8 to a file handle in 64 KiB blocks.
///
/// Use `sink.write` as an ``ExportSink``; call ``flush()`` (or ``close()``) when done.
public final class FileSink: TextOutputStream {
    private let handle: FileHandle
    private let ownsHandle: Bool
    private var buffer: [UInt8] = []
    private let capacity: Int
    /// Where the text goes, for error messages.
    public let name: String
    /// Bytes handed to the file so far (flushed or not).
    public private(set) var byteCount = 0

    /// Writes to an open handle (e.g. `FileHandle.standardOutput`); the handle is not closed.
    public init(handle: FileHandle, name: String, capacity: Int = 1 << 16) {
        self.handle = handle
        self.ownsHandle = false
        self.name = name
        self.capacity = capacity
        buffer.reserveCapacity(capacity)
    }

    /// Creates or truncates the file at `path` with `open(2)`, so a device such as `/dev/null` stays a device
    /// (FileManager's `createFile` would replace it with a regular file).
    /// - Throws: ``ExportError`` with code `output` when the file cannot be opened.
    public init(path: String, capacity: Int = 1 << 16) throws(ExportError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw ExportError(code: .output, message: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        self.handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        self.ownsHandle = true
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
        do {
            try handle.write(contentsOf: buffer)
        } catch {
            throw ExportError(code: .output, message: "cannot write to \(name): \(error)")
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes and closes a file this sink opened.
    public func close() throws(ExportError) {
        try flush()
        if ownsHandle { try? handle.close() }
    }
}
