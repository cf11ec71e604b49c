#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a text file one line at a time through `getline`: memory stays bounded by the longest line,
/// however long the file.
final class LineReader {
    private let file: UnsafeMutablePointer<FILE>
    private var buffer: UnsafeMutablePointer<CChar>?
    private var capacity = 0
    /// 1-based number of the line last returned.
    private(set) var lineNumber = 0

    /// Opens `path` for reading; nil when it cannot be opened (`errno` says why).
    init?(path: String) {
        guard let file = fopen(path, "r") else { return nil }
        self.file = file
    }

    deinit {
        free(buffer)
        fclose(file)
    }

    /// Calls `body` with the next line's bytes (without the line break), or returns nil at the end.
    func nextLine<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        let length = getline(&buffer, &capacity, file)
        guard length >= 0, let buffer else { return nil }
        lineNumber += 1
        var count = length
        while count > 0, buffer[count - 1] == 0x0A || buffer[count - 1] == 0x0D { count -= 1 }
        return try buffer.withMemoryRebound(to: UInt8.self, capacity: max(count, 1)) { pointer in
            try body(UnsafeBufferPointer(start: pointer, count: count))
        }
    }

    /// Why the last open failed, for messages.
    static var lastErrorDescription: String { String(cString: strerror(errno)) }
}
