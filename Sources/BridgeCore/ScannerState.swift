/// What a ``SupervisedScanner`` reports to its watchdog.
public struct ScannerState: Sendable, Hashable {
    /// The transport runs a discovery session now (not paused for a connection attempt, not stopping).
    public var discovering: Bool
    /// Advertisements seen since the transport run started; only its changes matter.
    public var advertisements: Int

    public init(discovering: Bool, advertisements: Int) {
        self.discovering = discovering
        self.advertisements = advertisements
    }
}
