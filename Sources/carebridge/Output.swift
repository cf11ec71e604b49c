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

    /// Says which unfinished `.partial` files of a killed earlier run writing `path` were removed.
    static func noteRemovedPartials(_ removed: [String], of path: String) {
        guard !removed.isEmpty else { return }
        error(
            "note: removed \(removed.count) unfinished file(s) a killed earlier run writing \(path) left: "
                + removed.joined(separator: ", ")
        )
    }
}
