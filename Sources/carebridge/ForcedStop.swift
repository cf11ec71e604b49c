import Foundation

/// A SIGINT or SIGTERM while `run`, `replay`, `record` or `scan` already stops gracefully (after a first signal,
/// or while a publisher drains its outbox at the end of a replay: a broker that does not answer, a device that
/// does not disconnect): the process ends at once.
enum ForcedStop {
    /// 128 + the signal's number, as a shell reports a process a signal ended: 130 (SIGINT), 143 (SIGTERM).
    static func exitCode(_ signal: Int32) -> Int32 { 128 + signal }

    /// For the commands' help.
    static let help = """
        A SIGINT or SIGTERM while it already stops (a second Ctrl-C, or one while the outbox drains) ends it at \
        once with 130 (SIGINT) or 143 (SIGTERM): what is stored stays stored, samples not yet published stay in \
        the outbox for the next --mqtt run.
        """

    /// The bridge's `forceQuit`: says so on standard error and exits without waiting for anything.
    static let handler: @Sendable (Int32) -> Void = { signal in
        let name = signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "signal \(signal)"
        Output.error(
            "\(name) while stopping: exiting now (\(exitCode(signal))) without waiting; what is stored stays "
                + "stored, what was not published stays in the outbox"
        )
        fflush(nil)
        _exit(exitCode(signal))
    }
}
