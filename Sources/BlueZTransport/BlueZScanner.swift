public import BridgeCore
import Synchronization

/// The scanner of a ``BlueZTransport``'s latest run, as its watchdog sees it.
public final class BlueZScanner: SupervisedScanner {
    let client = Mutex<BlueZClient?>(nil)

    public init() {}

    func attach(_ client: BlueZClient) {
        self.client.withLock { $0 = client }
    }

    public func scannerState() async -> ScannerState? {
        guard let client = client.withLock({ $0 }) else { return nil }
        return await client.scannerState()
    }

    public func recover(_ step: ScannerRecovery) async {
        guard let client = client.withLock({ $0 }) else { return }
        await client.recover(step)
    }
}
