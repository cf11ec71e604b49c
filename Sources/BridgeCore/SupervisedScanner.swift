/// A live transport's scanner as a watchdog sees it: whether it is discovering, how many advertisements it has
/// seen, and the recovery steps it can take (BlueZTransport's `scanner`).
///
/// The watchdog keeps the time itself (with its own clock), so the transport only counts.
public protocol SupervisedScanner: Sendable {
    /// The scanner now, or nil while no transport run is attached (before the first `events()`, after it ended).
    /// Answering also proves the transport's loop is alive (a live transport tells the service manager so).
    func scannerState() async -> ScannerState?
    /// Takes one recovery step; ``ScannerRecovery/giveUp(silence:)`` ends the transport's stream with an error.
    func recover(_ step: ScannerRecovery) async
}
