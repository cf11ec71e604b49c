import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A one-line progress bar on standard error, only when both standard output and standard error are
/// terminals (never in pipes or logs), and only for files long enough to need one.
final class ProgressBar: Sendable {
    private let label: String
    private let totalLines: Int
    private let lastDrawn = Mutex(-1)

    private init(label: String, totalLines: Int) {
        self.label = label
        self.totalLines = totalLines
    }

    /// A bar for `path`, or nil when output is not a terminal or the file is short (under 10,000 lines).
    static func forFile(_ path: String) -> ProgressBar? {
        guard Output.isTerminal, isatty(STDERR_FILENO) != 0 else { return nil }
        let lines = countLines(path)
        guard lines >= 10_000 else { return nil }
        return ProgressBar(label: URL(fileURLWithPath: path).lastPathComponent, totalLines: lines)
    }

    /// Counts newlines by streaming the file in blocks (memory stays flat).
    private static func countLines(_ path: String) -> Int {
        guard let handle = FileHandle(forReadingAtPath: path) else { return 0 }
        defer { try? handle.close() }
        var count = 0
        while let block = try? handle.read(upToCount: 1 << 20), !block.isEmpty {
            count += block.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        }
        return count
    }

    func update(line: Int) {
        let percent = min(100, line * 100 / max(totalLines, 1))
        let changed = lastDrawn.withLock { last in
            defer { last = percent }
            return last != percent
        }
        guard changed else { return }
        let width = 30
        let filled = width * percent / 100
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        FileHandle.standardError.write(Data("\r\(label) [\(bar)] \(percent)%".utf8))
    }

    func finish() {
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
