/// The staged recovery of a silent scanner, in the order a watchdog takes the steps.
public enum ScannerRecovery: Sendable, Hashable {
    /// Stop and start discovery again.
    case restartDiscovery
    /// Stop discovery, power-cycle the adapter, start discovery again.
    case powerCycle
    /// Nothing helped: end the transport run with an error (the service manager restarts the bridge).
    case giveUp(silence: Duration)
}
