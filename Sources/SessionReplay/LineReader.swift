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

    /// Opens `path` for reading; nil when it cannot be opened or is a directory (`errno` says why).
    init?(path: String) {
        guard let file = fopen(path, "r") else { return nil }
        var status = stat()
        if fstat(fileno(file), &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
            fclose(file)
            errno = EISDIR
            return nil
        }
        self.file = file
    }

    deinit {
        free(buffer)
        fclose(file)
    }

    /// Calls `body` with the next line's bytes (without the line break), or returns nil at the end. A UTF-8
    /// byte-order mark at the start of the file (editors on Windows write one) is skipped, as plan files do.
    func nextLine<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        let length = getline(&buffer, &capacity, file)
        guard length >= 0, let buffer else { return nil }
        lineNumber += 1
        var count = length
        while count > 0, buffer[count - 1] == 0x0A || buffer[count - 1] == 0x0D { count -= 1 }
        let skip =
            lineNumber == 1 && count >= 3 && UInt8(bitPattern: buffer[0]) == 0xEF
                && UInt8(bitPattern: buffer[1]) == 0xBB && UInt8(bitPattern: buffer[2]) == 0xBF ? 3 : 0
        return try (buffer + skip).withMemoryRebound(to: UInt8.self, capacity: max(count - skip, 1)) { pointer in
            try body(UnsafeBufferPointer(start: pointer, count: count - skip))
        }
    }

    /// Why the last open failed, for messages.
    static var lastErrorDescription: String { String(cString: strerror(errno)) }
}
