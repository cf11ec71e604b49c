import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Small helpers for writing to the terminal.
enum Output {
    /// True when standard output is a terminal (pretty output, progress bars).
    static var isTerminal: Bool { isatty(STDOUT_FILENO) != 0 }

    /// Writes one line to standard error, sanitised (messages quote device names, notes and bad lines).
    static func error(_ message: String) {
        FileHandle.standardError.write(Data(("carebridge: " + TerminalText.sanitize(message) + "\n").utf8))
    }
}
